"""The short path of `iolens convert perf-script FILE [--to folded] [OPTIONS]` to a file or pipe.

Folding is the command run on big inputs in a pipeline, and it is compared with
inferno-collapse-perf, a Rust binary that starts in a few milliseconds (bench/fold_ingest.py).
Through main.py the command imports argparse, json, logging, pathlib, dataclasses, every
subcommand's module and the Python reference parser before the Rust core starts: tens of
milliseconds, the whole difference at 40 MB of text. This module reads the same options by hand
and calls the Rust core directly. Anything it does not recognise exactly (help, an abbreviated
or unknown option, a bad value, `--to json`, an output that is not a file descriptor) returns
None, and main.py's parser handles the command as before, with the same options, output and
messages (convert.py's `_perf_script_configure` and `run`; tests/test_convert_fast.py compares
the two).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

FLAGS = {"--pid": "pid", "--tid": "tid", "--kernel": "kernel", "--jit": "jit", "--all": "all", "--addrs": "addrs"}
VALUED = ("--to", "--event-filter", "--skip-after", "--nthreads")


def parse(args: list[str]) -> dict | None:
    """The options after `convert perf-script`, or None when argparse must read them."""
    opts: dict = {"file": None, "to": "folded", "event_filter": None, "skip_after": [], "nthreads": 0,
                  **{k: False for k in FLAGS.values()}}
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a in FLAGS:
            opts[FLAGS[a]] = True
            continue
        name, eq, value = a.partition("=")
        if name in VALUED:
            if not eq:
                if i >= len(args):
                    return None
                value = args[i]
                i += 1
            if value.startswith("-"):  # argparse's rules for such values are its own
                return None
            if name == "--to":
                opts["to"] = value
            elif name == "--event-filter":
                opts["event_filter"] = value
            elif name == "--skip-after":
                opts["skip_after"].append(value)
            else:
                try:
                    opts["nthreads"] = int(value)
                except ValueError:
                    return None
            continue
        if a.startswith("-") and a != "-":  # -h, --help, '--', abbreviations, unknown options
            return None
        if opts["file"] is not None:
            return None
        opts["file"] = a
    return opts if opts["file"] is not None and opts["to"] == "folded" else None


def guarded(file: str, body: Callable[[], None]) -> int:
    """Runs a converter; errors become one line naming the file (exit status 1), a closed pipe
    (`| head`) a quiet stop. Shared with convert.py's `run`."""
    from ..formats.errors import FormatError

    try:
        body()
    except FormatError as exc:
        print(f"iolens convert: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `| head`: stop quietly, like other Unix filters
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the interpreter flushes it at exit
        return 0
    except OSError as exc:
        print(f"iolens convert: {_gzip_damage(file) or exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - a parser bug: one line naming the file, never a traceback
        damage = _gzip_damage(file)  # zlib.error from a damaged gzip header
        if damage is not None:
            print(f"iolens convert: {damage}", file=sys.stderr)
            return 1
        name = "<stdin>" if file == "-" else file
        print(f"iolens convert: {name}: cannot read this file "
              f"({type(exc).__name__}: {' '.join(str(exc).split())[:300]})", file=sys.stderr)
        return 1
    return 0


def _gzip_damage(file: str):  # -> FormatError | None; imported only after a failure (start-up)
    """The error naming the file and line a damaged gzip stream reaches (the native side says only
    'corrupt gzip stream'), or None."""
    if file == "-":
        return None
    from pathlib import Path

    from ..formats.gz import find_damage

    try:
        return find_damage(Path(file), file)
    except OSError:
        return None


def run(argv: list[str] | None = None) -> int | None:
    """The exit status of `convert perf-script ... --to folded` run here, or None: not for this path."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3 or args[0] != "convert" or args[1] != "perf-script":
        return None
    opts = parse(args[2:])
    if opts is None:
        return None
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests capture output)
        return None

    def fold() -> None:
        import iolens_native

        from ..formats.perf_script_source import native_source

        sys.stdout.flush()
        iolens_native.fold_write(
            native_source(opts["file"]), fd, pid=opts["pid"], tid=opts["tid"], kernel=opts["kernel"] or opts["all"],
            jit=opts["jit"] or opts["all"], addrs=opts["addrs"], event_filter=opts["event_filter"],
            skip_after=opts["skip_after"], nthreads=max(opts["nthreads"], 0))

    return guarded(opts["file"], fold)
