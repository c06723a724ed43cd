#!/usr/bin/env python3
"""What an --offcpu capture shows about fio's direct I/O completions, as a RECIPE.md section:
who wakes fio and from which stack, who wakes the kworkers that complete its writes (the
`iomap_dio_bio_end_io -> queue_work` side of issue 4's storm), and where each of them waits,
weighted by time off the CPU. Standard library only; reads the bundle's perf-offcpu text itself
(the server's pairing rule: a switch-out weighed by the time to the same thread's next switch-in).

    python3 datasets/offcpu-shows.py BUNDLE.iolens.tar.gz >> RECIPE.md
"""

import collections
import gzip
import json
import re
import sys
import tarfile

HEAD = re.compile(r"^(?P<comm>.*?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<s>\d+)\.(?P<ns>\d{9}): "
                  r"(?P<event>sched:sched_\w+): (?P<trace>.*)$")
SWITCH = re.compile(r"prev_comm=(.*?) prev_pid=(\d+) prev_prio=\S+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+) ")
WAKE = re.compile(r"comm=(.*?) pid=(\d+) prio=")


def events(text):
    """(header match, [frames leaf first]) per event."""
    head, frames = None, []
    for line in text.splitlines():
        if not line.strip():
            if head:
                yield head, frames
            head, frames = None, []
        elif line[0] in " \t":
            parts = line.split()
            if len(parts) >= 2:
                frames.append(parts[1].split("+0x")[0])
        else:
            if head:
                yield head, frames
            head, frames = HEAD.match(line), []
    if head:
        yield head, frames


def chain(frames, n=6):
    """The n frames nearest the leaf, root first."""
    return " -> ".join(reversed(frames[:n]))


def main(path):
    with tarfile.open(path) as t:
        m = json.load(t.extractfile("manifest.json"))
        run = m["runs"][0]
        text = gzip.decompress(t.extractfile(f"runs/{run['id']}/offcpu.script.gz").read()).decode("utf-8", "replace")
    pending = {}
    blocked = collections.defaultdict(collections.Counter)   # comm -> chain -> ns
    by_state = collections.defaultdict(collections.Counter)  # comm -> state -> ns
    woken = collections.defaultdict(collections.Counter)    # wakee comm -> (waker comm, chain) -> count
    for h, frames in events(text):
        if h is None:
            continue
        ts = int(h["s"]) * 10**9 + int(h["ns"])
        if h["event"] == "sched:sched_switch":
            s = SWITCH.match(h["trace"])
            if not s:
                continue
            prev, nxt = int(s[2]), int(s[5])
            if prev:
                pending[prev] = (ts, s[1], s[3], chain(frames))
            if nxt and nxt in pending:
                t0, comm, state, ch = pending.pop(nxt)
                key = "kworker" if comm.startswith("kworker/") else comm
                blocked[key][f"[{state}] {ch}"] += ts - t0
                by_state[key][state] += ts - t0
        elif h["event"] == "sched:sched_waking":
            w = WAKE.match(h["trace"])
            if not w:
                continue
            wakee = "kworker" if w[1].startswith("kworker/") else w[1]
            waker = h["comm"].strip()
            waker = "kworker" if waker.startswith("kworker/") else waker
            woken[wakee][(waker, chain(frames, 7))] += 1
    dio = sum(n for wakee in woken.values() for (_, ch), n in wakee.items() if "iomap_dio_bio_end_io" in ch)
    dio_wakees = collections.Counter()
    for wakee, c in woken.items():
        for (_, ch), n in c.items():
            if "iomap_dio_bio_end_io" in ch:
                dio_wakees[wakee] += n
    p = run["probes"]["offcpu"]
    out = ["", "## What it shows (computed from the bundle by `datasets/offcpu-shows.py`)", ""]
    rec = ", ".join(f"{e.split(':')[1]} {n} of {p['counted'][e]} ({100 * n / p['counted'][e]:.1f} %)"
                    for e, n in p["recorded"].items() if p["counted"].get(e))
    out.append(f"Recorded of perf stat's count: {rec} "
               + ("(**events lost**: below the 90 % rule, the capture is marked)" if p.get("lost") else "(no events lost by the 90 % rule)")
               + ". kworkers are merged as `kworker` below; ms are summed time off the CPU of all threads of that name.")
    out.append("")
    out.append(f"- wakeups raised from `iomap_dio_bio_end_io` (the direct I/O's bio completion queueing its work): {dio}, "
               "waking " + (", ".join(f"{k} ({n})" for k, n in dio_wakees.most_common(3)) or "nothing"))
    for who in ("fio", "kworker"):
        out.append(f"- `{who}` off the CPU: " + ", ".join(f"{s} {ns / 1e6:.1f} ms" for s, ns in by_state[who].most_common())
                   + "; where, by time:")
        for ch, ns in blocked[who].most_common(3):
            out.append(f"  - {ns / 1e6:.1f} ms `{ch}`")
        out.append(f"- what woke `{who}`, by count:")
        for (waker, ch), n in woken[who].most_common(3):
            out.append(f"  - {n} by {waker}: `{ch}`")
    print("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
