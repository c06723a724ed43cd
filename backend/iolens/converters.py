"""`iolens convert FORMAT FILE ...`: the parsers of iolens/formats as command-line converters.

One entry per format in CONVERTERS: its options (`configure`) and what it prints (`run`). Adding a
format's converter touches this file only.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .formats.errors import FormatError


def open_text(name: str) -> IO[str]:
    """FILE or '-' (standard input), gzip-compressed or not (detected from the first bytes)."""
    raw = sys.stdin.buffer if name == "-" else Path(name).open("rb")
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    if buffered.peek(2)[:2] == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.GzipFile(fileobj=buffered), encoding="utf-8", errors="replace")
    return io.TextIOWrapper(buffered, encoding="utf-8", errors="replace")


def source_name(name: str) -> str:
    return "<stdin>" if name == "-" else name


@dataclass(frozen=True)
class Converter:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, IO[str]], None]  # raises FormatError


def _fio_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["json"], default="json", help="output format (default: json)")


def _fio_run(args: argparse.Namespace, out: IO[str]) -> None:
    from .formats.fio_json import parse_fio_json

    with open_text(args.file) as f:
        result = parse_fio_json(f.read(), source=source_name(args.file))
    json.dump(dataclasses.asdict(result), out, indent=2, default=str)
    out.write("\n")


CONVERTERS: list[Converter] = [
    Converter("fio-json", "fio's JSON output (fio 2.x-3.x, json or json+) as normalised rows",
              _fio_configure, _fio_run),
]


def add_parsers(convert: argparse.ArgumentParser) -> None:
    sub = convert.add_subparsers(dest="format", required=True, metavar="FORMAT")
    for c in CONVERTERS:
        p = sub.add_parser(c.name, help=c.help, description=c.help)
        p.add_argument("file", metavar="FILE", help="input file, '-' for standard input; gzip is detected")
        c.configure(p)
        p.set_defaults(converter=c)


def run(args: argparse.Namespace) -> int:
    try:
        args.converter.run(args, sys.stdout)
    except FormatError as exc:
        print(f"iolens convert: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `| head`: stop quietly, like other Unix filters
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the interpreter flushes it at exit
        return 0
    except OSError as exc:
        print(f"iolens convert: {exc}", file=sys.stderr)
        return 1
    return 0
