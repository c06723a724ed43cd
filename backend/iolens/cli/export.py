"""`iolens export NOTEBOOK --format text|html [--server URL | --db PATH]`."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

_PERMALINK = re.compile(r"^(https?://.+?)/n/([0-9a-z]+)/?(?:[?#].*)?$")


def _write(args: argparse.Namespace, text: str) -> int:
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"iolens export: wrote {args.output} ({len(text.encode())} bytes)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def run(args: argparse.Namespace) -> int:
    ref = args.notebook.strip()
    server = args.server
    m = _PERMALINK.match(ref)
    if m:
        if args.db:
            print("iolens export: give a notebook id with --db, not a permalink", file=sys.stderr)
            return 2
        server = server or m.group(1)
        ref = m.group(2)
    if server:
        return _remote(args, server.rstrip("/"), ref)
    return _local(args, ref)


def _remote(args: argparse.Namespace, server: str, notebook_id: str) -> int:
    url = f"{server}/api/notebooks/{urllib.parse.quote(notebook_id)}/export?format={args.format}"
    try:
        with urllib.request.urlopen(url) as resp:
            return _write(args, resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        try:
            msg = json.load(exc).get("error")
        except ValueError:
            msg = str(exc)
        print(f"iolens export: {server}: {msg}", file=sys.stderr)
        return 1
    except urllib.error.URLError as exc:
        print(f"iolens export: cannot reach {server}: {exc.reason}", file=sys.stderr)
        return 1


def _local(args: argparse.Namespace, notebook_id: str) -> int:
    from ..exports import context, html, text
    from ..store.db import Store, StoreError
    from ..store.notebooks import NotebookError, get
    from ..store.sandbox import Sandbox
    from .config import default_db_path

    try:
        store = Store(Path(args.db or default_db_path()))
    except StoreError as exc:
        print(f"iolens export: {exc}", file=sys.stderr)
        return 1
    try:
        version = get(store, notebook_id)
        base = args.url or os.environ.get("IOLENS_PUBLIC_URL") or "http://127.0.0.1:8000"
        ctx = context.context(store, Sandbox(store), version, base)
        out = html.render(ctx) if args.format == "html" else text.render(ctx)
    except NotebookError as exc:
        print(f"iolens export: {exc.message}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return _write(args, out)
