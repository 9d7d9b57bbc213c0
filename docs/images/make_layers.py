"""Draw ``training_layers.png``, the layers of a calibrator's fit.

Run from the repository root after a change to the layers it shows::

    python docs/images/make_layers.py

The picture of docs/design/evaluation_objects.rst ("Training data"): each
box is a module, each arrow a call downwards; nothing calls upwards.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

HERE = Path(__file__).resolve().parent

# (x, y, width, height, title, detail, colour); y is the box's bottom
BOXES = {
    "pav": (
        0.2,
        8.0,
        3.0,
        1.2,
        "PAVCalibrator,\nPAVLLRCalibrator",
        "_pav_calibrators.py",
        "#dbe9f6",
    ),
    "affine": (
        3.5,
        8.0,
        3.0,
        1.2,
        "PlattCalibrator,\nProperScoringAffineCalibrator",
        "_platt.py, _affine.py\n(objectives: _kernel/_linear_rule.py)",
        "#dbe9f6",
    ),
    "fusion": (6.8, 8.0, 2.4, 1.2, "ProperScoringFusion", "_fusion.py", "#dbe9f6"),
    "memory": (
        9.5,
        8.0,
        3.3,
        1.2,
        "BetaCalibrator,\nVennAbersCalibrator, Auto...",
        "in memory only",
        "#dbe9f6",
    ),
    "base": (
        2.5,
        6.1,
        8.0,
        1.1,
        "BaseCalibrator.fit  (_base.py)",
        "training_data(X, y, w): the one Dask / in-memory decision;\n"
        "_fit(data) of the calibrator, then classes_ and priors from data",
        "#fde9c9",
    ),
    "array": (
        0.7,
        3.6,
        5.2,
        1.6,
        "ArrayTrainingData  (_data/_training.py)",
        "check_binary_y, check_weights (rescaled once),\nclass totals, "
        "zero-weight rows dropped once",
        "#e2f0d9",
    ),
    "dask": (
        7.1,
        3.6,
        5.2,
        1.6,
        "DaskTrainingData  (_dask/_training.py)",
        "one lazy first pass over all columns, y and w;\nsources and "
        "blocks on demand, kept on the data handle",
        "#e2f0d9",
    ),
    "kernels": (
        0.7,
        1.2,
        5.2,
        1.4,
        "_kernel/: ArrayData (_solver.py),\npav_blocks (_pav.py)",
        "Newton solver sources, PAV kernel",
        "#eeeeee",
    ),
    "dkernels": (
        7.1,
        1.2,
        5.2,
        1.4,
        "DaskData (_dask/_source.py),\nrange blocks (_dask/_blocks.py)",
        "first pass: _dask/_partitions.py",
        "#eeeeee",
    ),
    "utils": (2.5, 0.0, 8.0, 0.8, "utils/: _validation.py, _stats.py", None, "#f4f4f4"),
}

# (from, to, label): calls downwards
ARROWS = [
    ("pav", "base", "data.blocks(j)"),
    ("affine", "base", "data.column(j)"),
    ("fusion", "base", "data.stacked()"),
    ("memory", "base", "data.arrays()"),
    ("base", "array", "NumPy input"),
    ("base", "dask", "Dask input"),
    ("array", "kernels", None),
    ("dask", "dkernels", None),
    ("kernels", "utils", None),
    ("dkernels", "utils", None),
]


def _centre_top(box):
    x, y, w, h = box[:4]
    return x + w / 2, y + h


def _centre_bottom(box):
    x, y, w = box[:3]
    return x + w / 2, y


def main() -> None:
    fig, ax = plt.subplots(figsize=(11, 8.2))
    for x, y, w, h, title, detail, colour in BOXES.values():
        ax.add_patch(
            FancyBboxPatch(
                (x, y), w, h, boxstyle="round,pad=0.05", fc=colour, ec="#555555"
            )
        )
        if detail is None:
            ax.text(
                x + w / 2,
                y + h / 2,
                title,
                ha="center",
                va="center",
                fontsize=10,
                weight="bold",
            )
            continue
        ax.text(
            x + w / 2,
            y + h - 0.12,
            title,
            ha="center",
            va="top",
            fontsize=10,
            weight="bold",
        )
        ax.text(
            x + w / 2,
            y + 0.1,
            detail,
            ha="center",
            va="bottom",
            fontsize=8.5,
            color="#333333",
        )
    for start, end, label in ARROWS:
        x0, y0 = _centre_bottom(BOXES[start])
        x1, y1 = _centre_top(BOXES[end])
        if start in ("pav", "affine", "fusion", "memory"):
            x1 = (
                x0
                if BOXES[end][0] < x0 < BOXES[end][0] + BOXES[end][2]
                else (
                    BOXES[end][0] + 0.3
                    if x0 < BOXES[end][0]
                    else BOXES[end][0] + BOXES[end][2] - 0.3
                )
            )
        ax.annotate(
            "",
            xy=(x1, y1 + 0.05),
            xytext=(x0, y0 - 0.05),
            arrowprops={"arrowstyle": "->", "color": "#333333", "lw": 1.2},
        )
        if label:
            ax.text(
                (x0 + x1) / 2 + 0.08,
                (y0 + y1) / 2,
                label,
                fontsize=9,
                style="italic",
                va="center",
                ha="left",
                color="#1f4e79",
            )
    ax.text(
        6.5,
        9.75,
        "TrainingData: one validated object per fit, in memory or on Dask",
        ha="center",
        va="center",
        fontsize=13,
        weight="bold",
    )
    ax.set_xlim(0, 13)
    ax.set_ylim(-0.2, 10.1)
    ax.axis("off")
    fig.tight_layout()
    path = HERE / "training_layers.png"
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
