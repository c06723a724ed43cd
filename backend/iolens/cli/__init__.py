"""The `iolens` command (main.py) and its subcommands, one module each.

`main` sends `iolens convert perf-script FILE --to folded` (compared with inferno-collapse-perf,
a Rust binary, in bench/fold_ingest.py) to convert_fast.py, which starts the Rust core without
importing argparse and the other subcommands; everything else, and whatever that short path does
not recognise, goes to main.py.

`run` is the command as a process (the console script, `python -m iolens`): main(), then exit; an
`iolens ingest` that closed everything it opened ends at once, without the interpreter's
finalization (main.py `closed_all`).
"""

import os
import sys
from typing import NoReturn


def main(argv: list[str] | None = None) -> int:
    from . import convert_fast

    code = convert_fast.run(argv)
    if code is not None:
        return code
    from .main import main as full

    return full(argv)


def run() -> NoReturn:
    code = main()
    full = sys.modules.get(f"{__name__}.main")
    if full is not None and getattr(full, "closed_all", False):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


__all__ = ["main", "run"]
