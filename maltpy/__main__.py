"""``python -m maltpy``: the same as the ``maltpy`` command."""

import sys

from .cli import main

sys.exit(main())
