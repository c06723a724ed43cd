"""`iolens report`: the sweep comparison as a plain-text report for email (views/report.py gathers
it, exports/report.py draws it), from a DuckDB file or a running server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from .config import default_db_path, read_token

# The store, views and exports (pydantic, DuckDB) are imported when the report runs, not when the
# `iolens` parser is built: every other command (convert, ingest...) starts without them.


def add_parser(sub: Any, default_db: str) -> None:
    r = sub.add_parser(
        "report", help="the sweep comparison as a plain-text report for email (or Markdown, JSON)",
        description="Captures compared point by point against a baseline: the mean of each point's repeats, the "
                    "change against the baseline and Welch's t-test, as plain ASCII of at most 72 columns that "
                    "survives being quoted in a reply, with the permalink of the view (docs/sweeps.md).")
    r.add_argument("--baseline", required=True, metavar="LABEL",
                   help="the baseline capture, by label or id (required)")
    r.add_argument("--capture", action="append", default=[], metavar="LABEL",
                   help="a capture to compare, by label or id; repeat for more (default: every capture that shares "
                        "a sweep point with the baseline)")
    r.add_argument("--metric", action="append", default=[], metavar="KEY",
                   help="a metric, one table each: iops, bw, clat_p99, read.iops, write.clat_mean, cpu_per_io, "
                        "wall_s, sys_s, disk.read_iops, m.NAME... (default: iops for fio, wall_s for commands)")
    r.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                   help="text: for email (default); markdown: the same as Markdown tables; json: the data")
    r.add_argument("--rows", choices=["points", "captures"], default="points",
                   help="rows of the tables: sweep points (default) or captures")
    r.add_argument("--ratio", action="store_true", help="ratios (1.123x) instead of changes (+12.3%%) (default: off)")
    where = r.add_mutually_exclusive_group()
    where.add_argument("--db", help=f"read this DuckDB file (default: $IOLENS_DB or {default_db})")
    where.add_argument("--server", metavar="URL", help="ask a running `iolens serve` (e.g. http://127.0.0.1:8000)")
    r.add_argument("--token-file", metavar="FILE",
                   help="with --server: the server's access token, first line of FILE, to save the report's notebook "
                        "(the short permalink) (default: $IOLENS_TOKEN)")
    r.add_argument("--url", metavar="BASE", help="with --db: base of the permalink (default: $IOLENS_PUBLIC_URL, else "
                                                  "http://127.0.0.1:8000)")
    r.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")


def run_cli(args: Any) -> int:
    from ..exports.report import render
    from ..store import notebooks
    from ..store.db import Store, StoreError
    from ..views import sweep as sweep_view
    from ..views.report import ReportError, build, default_captures, resolve, save

    if args.server:
        text = _remote(args)
        if text is None:
            return 1
    else:
        try:
            store = Store(Path(args.db or default_db_path()))
        except StoreError as exc:
            print(f"iolens report: {exc}", file=sys.stderr)
            return 1
        try:
            base = resolve(store, [args.baseline])[0]
            caps = resolve(store, args.capture) if args.capture else default_captures(store, base)
            if base not in caps:
                caps = [base] + caps
            url = args.url or os.environ.get("IOLENS_PUBLIC_URL") or "http://127.0.0.1:8000"
            data = build(store, caps, base, args.metric or None, url)
            try:  # the short permalink: the report's view saved as a notebook in this store
                data = save(store, data, url)
            except (notebooks.NotebookError, StoreError):
                pass  # a read-only store: the long form of the link
            text = render(data, args.format, args.rows, args.ratio)
        except (ReportError, sweep_view.UnknownCaptures) as exc:
            print(f"iolens report: {exc}", file=sys.stderr)
            return 2
        finally:
            store.close()
    if args.output:
        Path(args.output).write_text(text, encoding="ascii", errors="replace")
        print(f"iolens report: wrote {args.output} ({len(text.splitlines())} lines)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _remote(args: Any) -> str | None:
    import urllib.error
    import urllib.parse
    import urllib.request

    from ..views.report import ReportError

    server = args.server.rstrip("/")
    try:
        with urllib.request.urlopen(f"{server}/api/captures") as resp:
            listing = json.load(resp)
        ids = []
        for name in [args.baseline] + list(args.capture):
            hit = [c["id"] for c in listing if c["id"] == name] or [c["id"] for c in listing if c["label"] == name]
            if not hit:
                raise ReportError(f"no capture with the id or label {name!r} on {server}")
            if len(hit) > 1:
                raise ReportError(f"label {name!r} names {len(hit)} captures ({', '.join(hit)}); give an id")
            ids.append(hit[0])
        q = [("captures", ",".join(ids)), ("baseline", ids[0]), ("format", args.format), ("rows", args.rows)]
        q += [("metric", m) for m in args.metric]
        if args.ratio:
            q.append(("ratio", "true"))
        if not args.capture:
            q.append(("related", "true"))
        url = f"{server}/api/report?{urllib.parse.urlencode(q)}"
        token = read_token(args.token_file, "report")
        # POST saves the report's view as a notebook on the server (the short permalink); saving is a
        # write, so a server with a token needs it. Without it, GET gives the same report with the long link.
        post = urllib.request.Request(url, method="POST", headers={"Authorization": f"Bearer {token}"} if token else {})
        try:
            with urllib.request.urlopen(post) as resp:
                return resp.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            if exc.code != 401:
                raise
            print(f"iolens report: {server} needs the access token to save the report's notebook "
                  "(--token-file or $IOLENS_TOKEN); the permalink is the long form", file=sys.stderr)
        with urllib.request.urlopen(url) as resp:
            return resp.read().decode("utf-8")
    except ReportError as exc:
        print(f"iolens report: {exc}", file=sys.stderr)
    except urllib.error.HTTPError as exc:
        try:
            msg = json.load(exc).get("error")
        except ValueError:
            msg = str(exc)
        print(f"iolens report: {server}: {msg}", file=sys.stderr)
    except urllib.error.URLError as exc:
        print(f"iolens report: cannot reach {server}: {exc.reason}", file=sys.stderr)
    return None
