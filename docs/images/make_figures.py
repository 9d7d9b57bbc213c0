"""Regenerate the figures of README.md and of the site's home page.

Run from the repository root after a change that alters them::

    python docs/images/make_figures.py

Each figure is written by the public command line, so the picture is what a
user gets from the same command:

- ``bayes_error.png``: ``skcalib demo --plot docs/images/bayes_error.png``
  (naive Bayes on the two-class waveform data, raw and calibrated scores).
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# figure file -> the skcalib command that draws it
FIGURES = {
    "bayes_error.png": ["demo", "--plot"],
}


def main() -> None:
    for name, command in FIGURES.items():
        path = HERE / name
        subprocess.run(
            [sys.executable, "-m", "skcalib", "-q", *command, str(path)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
