"""``python3 -m iolens_lab`` (from the collectors/ folder)."""

import sys

from .cli import main

sys.exit(main())
