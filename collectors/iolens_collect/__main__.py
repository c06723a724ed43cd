"""``python3 -m iolens_collect`` (from a copy of the collectors/ folder)."""

import sys

from .cli import main

sys.exit(main())
