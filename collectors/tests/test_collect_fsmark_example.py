"""examples/fsmark.py: the fs_mark-style metadata job, run for real under `iolens-collect cmd` (its
files/s in the bundle as the command's metrics), and its parser of fs_mark's own output."""

import importlib.util
import os
import re
import sys

from collect_helpers import open_bundle

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "fsmark.py")
spec = importlib.util.spec_from_file_location("fsmark_example", EXAMPLE)
fsmark = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fsmark)

# fs_mark 3.3's output (its README's example layout)
FS_MARK = """
#  fs_mark  -d  /mnt/test  -s  4096  -n  1000 -L 3
#\tVersion 3.3, 1 thread(s) starting at Wed Nov 25 14:00:00 2026
#\tSync method: INBAND FSYNC: fsync() per file in write loop.

FSUse%        Count         Size    Files/sec     App Overhead
     5         1000         4096        890.3            12345
     5         2000         4096        910.0            11000
     6         3000         4096        930.0            10000
"""


def test_parse_fs_mark_output():
    rows = fsmark.parse_fs_mark(FS_MARK)
    assert rows == [(5.0, 1000, 4096, 890.3, 12345), (5.0, 2000, 4096, 910.0, 11000), (6.0, 3000, 4096, 930.0, 10000)]
    assert fsmark.metric_lines(rows) == [
        "iolens-metric files_per_s 920.0 files/s", "iolens-metric files_per_s.loop0 890.3 files/s",
        "iolens-metric files_per_s.loop1 910.0 files/s", "iolens-metric files_per_s.loop2 930.0 files/s",
        "iolens-metric app_overhead_us 33345 us"]


def test_fsmark_job_under_cmd(collect, tmp_path):
    work = tmp_path / "fsmark"
    code, out, err = collect("cmd", "--label", "fsmark", "--sweep", "threads=1,2", "-o", "f.iolens.tar.gz", "--",
                             sys.executable, EXAMPLE, "-d", str(work), "-t", "{threads}", "-n", "100", "-s", "4096",
                             "-L", "2")
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "f.iolens.tar.gz"))
    assert [r["params"] for r in m["runs"]] == [{"threads": "1"}, {"threads": "2"}]
    for run in m["runs"]:
        [stdout] = [a for a in run["artifacts"] if a["kind"] == "cmd-stdout"]
        text = files[stdout["path"]].decode()
        assert re.search(r"^iolens-metric files_per_s [\d.]+ files/s$", text, re.M), text
        assert len(re.findall(r"^\s+\d+\s+\d+\s+4096\s+[\d.]+\s+\d+$", text, re.M)) == 2  # fs_mark's table, 2 loops
    assert not work.exists()  # the files are removed at the end
    assert re.search(r"files_per_s [\d.]+ files/s", out)
