"""Reading score and key files: a fast vectorized pass, a careful one on doubt.

The fast pass reads the file in blocks of bytes, splits each block into
fields with ``bytes.split`` (compiled), checks with NumPy that every line has
the expected number of fields, and converts whole columns at once (floats by
NumPy's parser, labels by comparing each distinct spelling once, BOSARIS
trials by integer codes of their model and segment names). Anything it does
not expect (a NUL byte, a quoted CSV field, a bad number or label, a missing
trial, ...) makes it give up, and the careful pass reads the file line by
line to name the first offending line, or to read the unusual but valid file.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import sys
import zlib
from dataclasses import dataclass, field

import numpy as np

from ._common import InputError, Progress

TARGET_LABELS = frozenset({"1", "+1", "target", "tar", "true", "t", "yes"})
NONTARGET_LABELS = frozenset(
    {"0", "-1", "nontarget", "non-target", "non", "false", "f", "no", "impostor"}
)
_KNOWN_LABELS = TARGET_LABELS | NONTARGET_LABELS
LABEL_HELP = "1/0, target/nontarget, tar/non, true/false, +1/-1"

_BOM = b"\xef\xbb\xbf"
_BLOCK = 1 << 23  # bytes per block of the fast pass (8 MiB)

#: A first line whose score field is not a number and that contains one of
#: these words is a header (``score label``, ``llr,label`` as written by
#: ``calibrate``, ``model segment score``, ...), not a malformed trial.
_HEADER_WORDS = ("score", "llr", "prob", "label", "class", "model", "seg", "trial")

# The bytes ``bytes.split()`` treats as whitespace.
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True


class _Doubt(Exception):
    """The fast pass met something it does not handle: read carefully."""


@dataclass
class ScoreFile:
    """A parsed score file: one entry per trial."""

    path: str
    kind: str  # "labelled" (score label), "trials" (model segment score), "plain"
    delimiter: str | None  # "," for CSV, None for whitespace
    header: list | None
    scores: np.ndarray
    columns: list = field(repr=False)  # each column's fields (str or bytes)
    labels: np.ndarray | None = None  # bool, True for target
    n_unscored: int = 0  # trials of the key file with no score in this file
    key_path: str | None = None
    source: _Source | None = field(default=None, repr=False)
    _lines: np.ndarray | None = field(default=None, repr=False)

    @property
    def score_col(self) -> int:
        return 2 if self.kind == "trials" else 0

    @property
    def lines(self) -> np.ndarray:
        """1-based line number of each trial (found by a second pass if needed)."""
        if self._lines is None:
            self._lines = _data_line_numbers(self.source, self.header is not None)
        return self._lines


_GZIP_MAGIC = b"\x1f\x8b"


class _Gunzip(io.RawIOBase):
    """A gzip stream whose failures are one-line input errors."""

    def __init__(self, raw, path: str):
        self._gz = gzip.GzipFile(fileobj=raw, mode="rb")
        self._raw = raw
        self._path = path

    def readable(self) -> bool:
        return True

    def read(self, size=-1) -> bytes:
        try:
            return self._gz.read(size)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            reason = "it ends too early" if isinstance(exc, EOFError) else exc
            raise InputError(f"{self._path}: damaged gzip file ({reason}).") from None

    def close(self) -> None:
        self._gz.close()
        self._raw.close()
        super().close()


class _Source:
    """A score file, or standard input for ``-``, readable more than once.

    A gzip-compressed file (recognized by its first bytes, whatever its name)
    is read decompressed.
    """

    def __init__(self, path: str):
        self.path = path
        self._data = None
        if path == "-":
            self._data = sys.stdin.buffer.read()
        elif os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a score file.")

    def open(self):
        raw = self._open_raw()
        if raw.peek(2)[:2] == _GZIP_MAGIC:
            return _Gunzip(raw, self.name)
        return raw

    def _open_raw(self):
        if self._data is not None:
            return io.BufferedReader(io.BytesIO(self._data))
        try:
            return open(self.path, "rb")
        except FileNotFoundError:
            raise InputError(f"{self.path}: no such file.") from None
        except IsADirectoryError:
            raise InputError(
                f"{self.path}: is a directory, not a score file."
            ) from None
        except OSError as exc:
            raise InputError(
                f"{self.path}: cannot read: {exc.strerror or exc}."
            ) from None

    def text(self) -> str:
        with self.open() as f:
            data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = 1 + data.count(b"\n", 0, exc.start)
            raise InputError(
                f"{self.path}, line {line}: not UTF-8 text (is this a score file?)."
            ) from None
        return text[1:] if text.startswith("\ufeff") else text

    @property
    def name(self) -> str:
        return "standard input" if self.path == "-" else self.path


# ----------------------------------------------------------------- careful pass
def _split_lines(text: str, path: str):
    """Non-blank, non-comment lines as (line numbers, field lists, delimiter)."""
    raw = text.splitlines()
    numbers = []
    kept = []
    for i, line in enumerate(raw, start=1):
        s = line.strip()
        if s and not s.startswith("#"):
            if "\x00" in s:
                raise InputError(
                    f"{path}, line {i}: NUL byte (binary data, not a score file?)."
                )
            numbers.append(i)
            kept.append(s)
    if not kept:
        raise InputError(f"{path}, line {len(raw) + 1}: empty file (no trials found).")
    delimiter = "," if "," in kept[0] else None
    if delimiter == ",":
        # one file, one delimiter: a line without a comma in a comma-separated
        # file is a whitespace-separated line (or a one-field line), not CSV
        for n, s in zip(numbers, kept, strict=True):
            if "," not in s:
                raise InputError(
                    f"{path}, line {n}: no comma, but line {numbers[0]} separates "
                    "its fields by commas: use one delimiter in the whole file."
                )
        rows = [[f.strip() for f in r] for r in csv.reader(kept)]
    else:
        rows = [s.split() for s in kept]
    return np.asarray(numbers, dtype=np.int64), rows, delimiter, len(raw)


def _data_line_numbers(source: _Source, has_header: bool) -> np.ndarray:
    numbers, _, _, _ = _split_lines(source.text(), source.path)
    return numbers[1:] if has_header else numbers


def _is_header(fields: list, score_col: int) -> bool:
    if score_col >= len(fields):
        return False
    try:
        float(fields[score_col])
        return False
    except ValueError:
        return any(w in f.lower() for f in fields for w in _HEADER_WORDS)


def _parse_floats(values: list, numbers: np.ndarray, path: str, what: str):
    try:
        out = np.array(values, dtype=np.float64)
    except ValueError:
        out = None
    if out is None or np.isnan(out).any():
        for v, n in zip(values, numbers, strict=True):
            try:
                x = float(v)
            except ValueError:
                raise InputError(
                    f"{path}, line {n}: {what} {v!r} is not a number."
                ) from None
            if math.isnan(x):
                raise InputError(f"{path}, line {n}: {what} is NaN.")
    return out


def _check_columns(
    rows, numbers, expected: int, path: str, layout: str, delimiter=None
):
    counts = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    bad = np.flatnonzero(counts != expected)
    if bad.size:
        i = int(bad[0])
        found = int(counts[i])
        problem = "missing column" if found < expected else "extra column"
        hint = ""
        if delimiter is None and any("," in f for f in rows[i]):
            hint = (
                " This line has commas, but the first line separates its "
                "fields by whitespace: use one delimiter in the whole file."
            )
        raise InputError(
            f"{path}, line {numbers[i]}: {problem}: expected {expected} columns "
            f"({layout}), found {found}.{hint}"
        )


def classify_labels(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Target mask of a label column, and the index of the first unknown label.

    Each distinct spelling is compared once against the whole column, in the
    order of first appearance, so the work is one vectorized pass per distinct
    spelling (two or three in practice) and the unknown label reported is the
    earliest in the file. The index is -1 when every label is known.
    """
    is_tar = np.zeros(values.shape[0], dtype=bool)
    pending = np.arange(values.shape[0])
    while pending.size:
        spelling = values[pending[0]]
        text = spelling.decode() if isinstance(spelling, bytes) else str(spelling)
        lowered = text.lower()
        if lowered not in TARGET_LABELS and lowered not in NONTARGET_LABELS:
            return is_tar, int(pending[0])
        same = values[pending] == spelling
        if lowered in TARGET_LABELS:
            is_tar[pending[same]] = True
        pending = pending[~same]
    return is_tar, -1


def _parse_labels(values: list, numbers: np.ndarray, path: str) -> np.ndarray:
    is_tar, bad = classify_labels(np.asarray(values, dtype=str))
    if bad >= 0:
        raise InputError(
            f"{path}, line {numbers[bad]}: unknown label {values[bad]!r} "
            f"(expected one of {LABEL_HELP})."
        )
    return is_tar


def _layout(width: int, key: bool, need_labels: bool):
    """(kind, score column, layout text, expected columns) of a file."""
    if key or width == 3:
        return "trials", 2, "model segment score", 3
    if width == 1 and not need_labels:
        return "plain", 0, "score", 1
    return "labelled", 0, "score label", 2


def _read_careful(source: _Source, *, key: bool, need_labels: bool) -> ScoreFile:
    path = source.name
    numbers, rows, delimiter, n_lines = _split_lines(source.text(), path)
    kind, score_col, layout, expected = _layout(len(rows[0]), key, need_labels)
    header = None
    if _is_header(rows[0], score_col):
        header, rows, numbers = rows[0], rows[1:], numbers[1:]
        if not rows:
            raise InputError(
                f"{path}, line {n_lines + 1}: no trials after the header line."
            )
    _check_columns(rows, numbers, expected, path, layout, delimiter)
    scores = _parse_floats([r[score_col] for r in rows], numbers, path, "score")
    columns = [
        None if j == score_col else np.array([r[j] for r in rows])
        for j in range(expected)
    ]
    out = ScoreFile(path, kind, delimiter, header, scores, columns, source=source)
    out._lines = numbers
    if kind == "labelled":
        out.labels = _parse_labels(columns[1].tolist(), numbers, path)
    return out


def _read_key_careful(source: _Source):
    path = source.name
    numbers, rows, delimiter, n_lines = _split_lines(source.text(), path)
    first = rows[0]
    if (
        len(first) == 3
        and first[2].lower() not in TARGET_LABELS | NONTARGET_LABELS
        and any(w in " ".join(first).lower() for w in ("model", "segment", "label"))
    ):
        rows, numbers = rows[1:], numbers[1:]
    if not rows:
        raise InputError(f"{path}, line {n_lines + 1}: no trials in key file.")
    _check_columns(rows, numbers, 3, path, "model segment target|nontarget", delimiter)
    labels = _parse_labels([r[2] for r in rows], numbers, path)
    return rows, numbers, labels


def _match_key_careful(sf: ScoreFile, key_source: _Source):
    """Labels of the scored trials and the number of key trials not scored.

    A key may hold more trials than the score file (a master key evaluated
    on the scores of one condition); a scored trial missing from the key,
    or scored twice, is an error naming its line.
    """
    key_path = key_source.name
    rows, numbers, labels = _read_key_careful(key_source)
    table: dict = {}
    for r, n, lab in zip(rows, numbers, labels.tolist(), strict=True):
        trial = (r[0], r[1])
        if trial in table:
            raise InputError(
                f"{key_path}, line {n}: duplicate trial ({r[0]}, {r[1]}) "
                f"(first on line {table[trial][1]})."
            )
        table[trial] = (lab, int(n))
    models, segments = (_as_text(c) for c in sf.columns[:2])
    out = np.empty(len(models), dtype=bool)
    seen: dict = {}
    for i, (m, g, n) in enumerate(zip(models, segments, sf.lines, strict=True)):
        trial = (m, g)
        hit = table.get(trial)
        if hit is None:
            raise InputError(
                f"{sf.path}, line {n}: trial ({m}, {g}) is not in the "
                f"key file {key_path} (key/score mismatch)."
            )
        if trial in seen:
            raise InputError(
                f"{sf.path}, line {n}: duplicate trial ({m}, {g}) "
                f"(first on line {seen[trial]})."
            )
        seen[trial] = int(n)
        out[i] = hit[0]
    return out, len(table) - len(seen)


def _as_text(column: np.ndarray) -> list:
    if column.dtype.kind == "S":
        return [b.decode("utf-8") for b in column.tolist()]
    return column.tolist()


# -------------------------------------------------------------------- fast pass
def _blocks(source: _Source):
    """The file as blocks of whole lines (BOM removed), checked for NUL/UTF-8."""
    with source.open() as f:
        carry = b""
        first = True
        while True:
            chunk = f.read(_BLOCK)
            if first:
                if chunk.startswith(_BOM):
                    chunk = chunk[len(_BOM) :]
                first = False
            if not chunk:
                if carry:
                    yield _checked(carry)
                return
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            carry = data[cut:]
            yield _checked(data[:cut])


def _checked(block: bytes) -> bytes:
    if b"\x00" in block:
        raise _Doubt
    if np.frombuffer(block, dtype=np.uint8).max(initial=0) >= 0x80:
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            raise _Doubt from None
    if b"#" in block:  # drop comment lines (their number matters only in messages)
        block = b"\n".join(
            line for line in block.split(b"\n") if not line.lstrip().startswith(b"#")
        )
    return block


def _first_line(block: bytes):
    """(fields of the first non-blank line, offset just past it) or None."""
    start = 0
    while start < len(block):
        end = block.find(b"\n", start)
        end = len(block) if end < 0 else end
        line = block[start:end].strip()
        if line:
            return line, end + 1
        start = end + 1
    return None


def _fields(block: bytes, width: int, comma: bool = False) -> list:
    """The fields of ``block``, after checking each line has ``width`` of them.

    With ``comma``, every line must also hold exactly ``width - 1`` commas
    (one file, one delimiter: a whitespace-separated line in a CSV file, or
    an empty field, is for the careful pass to report).
    """
    if comma:
        if b'"' in block:
            raise _Doubt
        comma_at = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 44)
        block = block.replace(b",", b" ")
    tokens = block.split()
    if not tokens:
        if comma and comma_at.size:
            raise _Doubt
        return tokens
    if len(tokens) % width:
        raise _Doubt
    buf = np.frombuffer(block, dtype=np.uint8)
    word = ~_SPACE[buf]
    starts = np.flatnonzero(word[1:] & ~word[:-1]) + 1
    if word[0]:
        starts = np.concatenate(([0], starts))
    newlines = np.flatnonzero(buf == 10)
    line_of = np.searchsorted(newlines, starts)
    first, last = line_of[::width], line_of[width - 1 :: width]
    if (first != last).any() or (first[1:] == first[:-1]).any():
        raise _Doubt
    if comma:
        n_lines = newlines.shape[0] + 1
        per_line = np.bincount(np.searchsorted(newlines, comma_at), minlength=n_lines)
        expected = np.zeros(n_lines, dtype=per_line.dtype)
        expected[first] = width - 1
        if (per_line != expected).any():
            raise _Doubt
    return tokens


def _floats(tokens: list) -> np.ndarray:
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        raise _Doubt from None
    if np.isnan(values).any():
        raise _Doubt
    return values


def _read_fast(
    source: _Source,
    progress: Progress,
    *,
    key: bool,
    need_labels: bool,
    key_file: bool = False,
) -> ScoreFile:
    header = None
    kind = delimiter = None
    scores, columns = [], []
    n_read = 0
    for block in _blocks(source):
        if kind is None:
            found = _first_line(block)
            if found is None:
                continue
            line, past = found
            delimiter = "," if b"," in line else None
            if delimiter:
                if b'"' in block:
                    raise _Doubt
                line = line.replace(b",", b" ")
            fields = [f.decode("utf-8") for f in line.split()]
            if key_file:  # model segment label: no score column
                kind, score_col, width = "key", -1, 3
                if len(fields) != 3 or fields[2].lower() not in _KNOWN_LABELS:
                    raise _Doubt  # a header, or a bad line: read carefully
            else:
                kind, score_col, _, width = _layout(len(fields), key, need_labels)
                if _is_header(fields, score_col):
                    header, block = fields, block[past:]
            columns = [[] for _ in range(width)]
        tokens = _fields(block, width, comma=delimiter == ",")
        if not tokens:
            continue
        for j in range(width):
            if j == score_col:
                scores.append(_floats(tokens[j::width]))
            else:
                columns[j].append(np.array(tokens[j::width]))
        n_read += len(tokens) // width
        del tokens
        progress.update(f"reading {source.name}: {n_read:,} trials", throttle=True)
    if n_read == 0:
        raise _Doubt  # empty, or a header only: the careful pass says where
    scores = np.concatenate(scores) if scores else None
    columns = [np.concatenate(c) if c else None for c in columns]
    out = ScoreFile(
        source.name, kind, delimiter, header, scores, columns, source=source
    )
    if kind == "labelled":
        out.labels, bad = classify_labels(columns[1])
        if bad >= 0:
            raise _Doubt
    return out


def trial_codes(*pairs) -> list:
    """Integer codes of BOSARIS trials, equal across files iff the trials are.

    Each of ``pairs`` is the ``(model, segment)`` name columns of one file;
    returns one int64 array of codes per file, from ``np.unique`` over all
    the names at once (no Python loop over trials).
    """
    sizes = [p[0].shape[0] for p in pairs]
    codes = []
    for j in range(2):
        cols = [p[j] for p in pairs]
        if len({c.dtype.kind for c in cols}) > 1:  # bytes (fast) and str (careful)
            cols = [
                np.char.decode(c, "utf-8") if c.dtype.kind == "S" else c for c in cols
            ]
        _, inverse = np.unique(np.concatenate(cols), return_inverse=True)
        codes.append(inverse.reshape(-1).astype(np.int64))
    n_seg = int(codes[1].max()) + 1
    trial = codes[0] * n_seg + codes[1]
    return np.split(trial, np.cumsum(sizes)[:-1])


def _match_key_fast(sf: ScoreFile, key_source: _Source, progress):
    """Labels of the scored trials (matched by integer codes of their names)
    and the number of key trials not scored."""
    key = _read_fast(key_source, progress, key=True, need_labels=False, key_file=True)
    is_tar, bad = classify_labels(key.columns[2])
    if bad >= 0:
        raise _Doubt
    scored, keyed = trial_codes(sf.columns[:2], key.columns[:2])
    order = np.argsort(keyed, kind="stable")
    sorted_keyed = keyed[order]
    if (sorted_keyed[1:] == sorted_keyed[:-1]).any():
        raise _Doubt  # duplicate key trial
    pos = np.searchsorted(sorted_keyed, scored)
    pos[pos == sorted_keyed.shape[0]] = 0
    if (sorted_keyed[pos] != scored).any():
        raise _Doubt  # a scored trial not in the key
    hits = np.bincount(pos, minlength=sorted_keyed.shape[0])
    if (hits > 1).any():
        raise _Doubt  # a duplicate scored trial: the careful pass names it
    return is_tar[order][pos], int(np.count_nonzero(hits == 0))


# ------------------------------------------------------------------------- API
def check_inputs(paths) -> None:
    """Refuse, before any work, an input file that cannot be opened.

    ``paths`` may hold ``None`` (not given) and ``-`` (standard input, read
    when its turn comes); a file read after a long step (``--apply`` after
    the training) is checked here with the others.
    """
    for path in paths:
        if path in (None, "-"):
            continue
        if os.path.exists(path) and not (os.path.isfile(path) or os.path.isdir(path)):
            continue  # a FIFO is read once: opening it here could lose its data
        _Source(path)._open_raw().close()


def read_scores(
    path: str,
    progress: Progress,
    *,
    key: str | None = None,
    key_option: str = "--key",
    need_labels: bool = True,
) -> ScoreFile:
    """Read a score file (and its key file), validating every line."""
    source = _Source(path)
    try:
        sf = _read_fast(source, progress, key=key is not None, need_labels=need_labels)
    except _Doubt:
        sf = _read_careful(source, key=key is not None, need_labels=need_labels)
    if sf.kind == "trials" and need_labels:
        if key is None:
            raise InputError(
                f"{sf.path}, line {sf.lines[0]}: three columns (model segment "
                f"score) need a key file: pass {key_option} KEY."
            )
        key_source = _Source(key)
        try:
            sf.labels, sf.n_unscored = _match_key_fast(sf, key_source, progress)
        except _Doubt:
            sf.labels, sf.n_unscored = _match_key_careful(sf, key_source)
        sf.key_path = key_source.name
    progress.update(f"read {sf.path}: {sf.scores.shape[0]:,} trials")
    return sf


def format_value(x: float) -> str:
    """The shortest text that reads back to the same double (``inf``, ``-inf``)."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def require_finite(sf: ScoreFile, why: str) -> None:
    """Refuse infinite scores, naming the first one's line and ``why``."""
    bad = np.flatnonzero(~np.isfinite(sf.scores))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"{sf.path}, line {sf.lines[i]}: score {format_value(sf.scores[i])!r} "
            f"must be finite {why}."
        )


def unscored_note(sf: ScoreFile) -> str | None:
    """One line on the key trials that have no score, if there are any."""
    if not sf.n_unscored:
        return None
    n = sf.n_unscored
    return (
        f"{sf.key_path}: {n:,} key trial{'s' if n != 1 else ''} "
        f"{'have' if n != 1 else 'has'} no score in {sf.path} and "
        f"{'are' if n != 1 else 'is'} left out (the key may cover more "
        "trials than one score file)."
    )


def require_both_classes(sf: ScoreFile) -> None:
    n_tar = int(np.count_nonzero(sf.labels))
    if n_tar == 0 or n_tar == sf.labels.shape[0]:
        missing = "target" if n_tar == 0 else "non-target"
        lines = sf.lines
        raise InputError(
            f"{sf.path}, lines {lines[0]}-{lines[-1]}: no {missing} trials; both "
            "target and non-target trials are needed."
        )
