"""`iolens convert perf-script ... --to folded`'s short path (cli/convert_fast.py) against the full
command line (cli/main.py, argparse): the same output, messages and exit status, and the short
path taken (argparse not imported) where it applies."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from iolens.cli import convert_fast

SAMPLES = Path(__file__).parent / "formats" / "samples"
GZ = SAMPLES / "perf-6.1-gzip-two-events.txt.gz"

PROBE = ("import sys\nfrom iolens.cli{mod} import main\ntry:\n    rc = main(sys.argv[1:])\n"
         "except SystemExit as e:\n    rc = e.code\nsys.stdout.flush()\n"
         "print('argparse' in sys.modules, file=sys.stderr)\nsys.exit(rc)")


def run(args: list[str], full: bool) -> tuple[int, bytes, bytes, bool]:
    """(exit status, stdout, stderr without the probe line, argparse imported) of `iolens ARGS`,
    through cli.main (full) or the entry point (the short path where it applies)."""
    code = PROBE.format(mod=".main" if full else "")
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=120)
    *err, probe = r.stderr.splitlines(keepends=True)
    return r.returncode, r.stdout, b"".join(err), probe.strip() == b"True"


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("fast") / "two-events.txt"
    p.write_bytes(gzip.decompress(GZ.read_bytes()))
    return p


@pytest.mark.parametrize("opts", [
    [], ["--to", "folded"], ["--to=folded", "--all"], ["--pid"], ["--tid", "--addrs"], ["--kernel", "--jit"],
    ["--event-filter", "cpu-clock"], ["--event-filter=page-faults"], ["--skip-after", "main", "--skip-after=start"],
    ["--nthreads", "1"], ["--nthreads=3", "--pid"],
])
def test_short_path_prints_what_the_full_command_prints(plain, opts):
    for src in (plain, GZ):
        fast = run(["convert", "perf-script", *opts, str(src)], full=False)
        full = run(["convert", "perf-script", str(src), *opts], full=True)
        assert fast[:3] == full[:3] and fast[0] == 0 and fast[1]
        assert not fast[3] and full[3]  # the short path was taken (no argparse), the full one was not


def test_errors_are_the_same_lines(tmp_path):
    data = tmp_path / "perf.data"
    data.write_bytes(b"PERFILE2" + b"\0" * 64)
    for args in (["convert", "perf-script", str(tmp_path / "nope.txt")], ["convert", "perf-script", str(data)]):
        fast, full = run(args, full=False), run(args, full=True)
        assert fast[:3] == full[:3] and fast[0] == 1 and fast[2].startswith(b"iolens convert: ")
        assert not fast[3]


@pytest.mark.parametrize("rest", [
    ["-h"], ["--help"], ["--to", "json"], ["--ev", "x"], ["--pid=1"], ["--nthreads", "x"], ["--"],
    ["--event-filter", "-x"], ["--bogus"], ["--skip-after"],
])
def test_anything_else_goes_to_argparse(plain, rest):
    args = ["convert", "perf-script", str(plain), *rest]
    assert convert_fast.parse(args[2:]) is None
    fast, full = run(args, full=False), run(args, full=True)
    assert fast == full  # same output and messages, argparse imported by both


def test_parse_reads_the_options():
    o = convert_fast.parse(["-", "--tid", "--skip-after", "a", "--skip-after=b", "--event-filter", "", "--nthreads=2"])
    assert o is not None
    assert (o["file"], o["tid"], o["pid"], o["skip_after"], o["event_filter"], o["nthreads"]) == ("-", True, False,
                                                                                                    ["a", "b"], "", 2)
    assert convert_fast.parse(["a", "b"]) is None and convert_fast.parse(["--pid"]) is None
    assert convert_fast.run(["convert", "fio-json", "x"]) is None and convert_fast.run(["serve"]) is None
