"""``python -m skcalib``: the command line (see :mod:`skcalib._cli`)."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
