"""Writing calibrated scores in the format of the file they were read from."""

from __future__ import annotations

import csv
import io
import sys

import numpy as np

from ._output import atomic_output
from ._reader import ScoreFile, format_value

_ROWS_PER_CHUNK = 100_000


def _chunks(sf: ScoreFile, values: np.ndarray, column_name: str):
    """The output text in pieces of ``_ROWS_PER_CHUNK`` lines."""
    col = sf.score_col
    comma = sf.delimiter == ","

    def render(rows) -> str:
        buf = io.StringIO()
        if comma:
            csv.writer(buf, lineterminator="\n").writerows(rows)
        else:
            buf.writelines(" ".join(r) + "\n" for r in rows)
        return buf.getvalue()

    if sf.header is not None:
        header = list(sf.header)
        header[col] = column_name
        yield render([header])
    n = values.shape[0]
    for start in range(0, n, _ROWS_PER_CHUNK):
        stop = min(start + _ROWS_PER_CHUNK, n)
        fields = [
            [format_value(v) for v in values[start:stop].tolist()]
            if j == col
            else _text(sf.columns[j][start:stop])
            for j in range(len(sf.columns))
        ]
        yield render(zip(*fields, strict=True))


def _text(column: np.ndarray) -> list:
    if column.dtype.kind == "S":
        return [b.decode("utf-8") for b in column.tolist()]
    return column.tolist()


def write_scores(
    sf: ScoreFile, values: np.ndarray, out_path: str | None, column_name: str
) -> None:
    """Write ``values`` in place of the score column, in the input's format.

    A file is replaced only once it is completely written (see
    :func:`atomic_output`); ``None`` or ``-`` writes to standard output.
    """
    pieces = _chunks(sf, values, column_name)
    if out_path is None or out_path == "-":
        for piece in pieces:
            sys.stdout.write(piece)
        return
    with atomic_output(out_path, "w") as f:
        for piece in pieces:
            f.write(piece)
