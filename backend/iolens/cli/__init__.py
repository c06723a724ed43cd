"""The `iolens` command (main.py) and its subcommands, one module each.

`main` sends `iolens convert perf-script FILE --to folded` (compared with inferno-collapse-perf,
a Rust binary, in bench/fold_ingest.py) to convert_fast.py, which starts the Rust core without
importing argparse and the other subcommands; everything else, and whatever that short path does
not recognise, goes to main.py.
"""


def main(argv: list[str] | None = None) -> int:
    from . import convert_fast

    code = convert_fast.run(argv)
    if code is not None:
        return code
    from .main import main as full

    return full(argv)


__all__ = ["main"]
