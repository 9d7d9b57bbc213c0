"""The README's "Scaling out (Dask)" snippet runs as written."""

import re
from pathlib import Path

import numpy as np
import pandas as pd

README = Path(__file__).resolve().parents[2] / "README.md"


def _snippet():
    section = README.read_text(encoding="utf-8").split("## Scaling out", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_scaling_out_snippet(tmp_path, monkeypatch, capsys):
    from skcalib.metrics import cllr, min_dcf

    rng = np.random.default_rng(0)
    label = (rng.random(4000) < 0.2).astype(int)
    score = rng.normal(size=4000) + 2.0 * label
    (tmp_path / "trials").mkdir()
    for i in range(4):
        part = slice(1000 * i, 1000 * (i + 1))
        pd.DataFrame({"score": score[part], "label": label[part]}).to_parquet(
            tmp_path / "trials" / f"part.{i}.parquet"
        )
    monkeypatch.chdir(tmp_path)
    namespace = {}
    try:
        exec(compile(_snippet(), str(README), "exec"), namespace)
    finally:
        client = namespace.get("client")
        if client is not None:
            cluster = client.cluster
            client.close()
            if cluster is not None:
                cluster.close()
    printed = [float(v) for v in capsys.readouterr().out.split()]
    ref_llr = namespace["cal"].transform(score)
    expected = [min_dcf(label, score, p_target=0.01), cllr(label, ref_llr)]
    np.testing.assert_allclose(printed, expected, rtol=1e-9)
