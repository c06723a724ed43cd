"""`iolens`: serve the app, ingest bundles, convert tools' output.

    iolens serve [--db PATH] [--host H] [--port N]
    iolens ingest BUNDLE... [--db PATH | --server URL]
    iolens bundle --label L [--kernel RELEASE] [--tag K=V]... FILE... -o BUNDLE
    iolens convert FORMAT FILE [--to json]
    iolens export NOTEBOOK [--format text|html] [--server URL | --db PATH]
    iolens report --baseline LABEL [--capture LABEL]... [--metric KEY]... [--format text|markdown|json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .. import __version__
from .config import default_db_path, read_token

if TYPE_CHECKING:
    from ..ingest.early import EarlyIngest


def _human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


class _Bundle(NamedTuple):
    name: str  # as given on the command line
    path: Path
    prefix: str  # "[i/n] NAME", the start of each line said about it


class _Bundles:
    """The bundles named on the command line, in order, for `iolens ingest` (local or --server): each
    with its progress prefix; a name that is not a file is said ("no such file"), counted in
    `failed` and skipped. The caller counts its own refusals in `failed` too."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.failed = 0

    def __iter__(self) -> Iterator[_Bundle]:
        for i, name in enumerate(self.names, 1):
            path = Path(name)
            prefix = f"[{i}/{len(self.names)}] {name}"
            if not path.is_file():
                print(f"{prefix}: no such file", file=sys.stderr)
                self.failed += 1
                continue
            yield _Bundle(name, path, prefix)


KEEP_ALIVE_S = 75


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ..api.app import Settings, build_routes, create_app, default_frontend_dist
    from ..store.db import StoreError

    db = Path(args.db)
    settings = Settings(db_path=db, data_dir=db.parent, frontend_dist=default_frontend_dist(),
                        token=read_token(args.token_file, "serve"))
    if args.public_url:
        settings.public_url = args.public_url
    try:
        app = create_app(settings)
    except StoreError as exc:
        print(f"iolens serve: {exc}", file=sys.stderr)
        return 1
    build_routes(app)  # now rather than on each router's first request (~0.3 s in all)
    print(f"iolens {__version__}: database {db}", file=sys.stderr)
    if settings.frontend_dist is None:
        print("iolens serve: frontend not built (run `make build`); serving the API only", file=sys.stderr)
    print(f"iolens: uploads and saves {'need the access token' if settings.token else 'are open to anyone who can reach this port'}",
          file=sys.stderr)
    print(f"iolens: open http://{args.host}:{args.port}/", file=sys.stderr)
    # An idle connection is kept 75 s (uvicorn's default is 5 s): HTTP clients that keep connections
    # open without a time limit of their own (Node's keep-alive agents, as in Playwright's request
    # API, scripts using requests' sessions) otherwise send a request on a socket the server is
    # closing, and get a reset (ECONNRESET) for a request the server never saw.
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_keep_alive=KEEP_ALIVE_S)
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    if args.server:
        return _ingest_remote(args.server.rstrip("/"), args.bundles, read_token(args.token_file, "ingest"))
    # The first bundle's gzip inflated, its SHA-256 and its perf script pass started on threads of
    # their own before anything heavy is imported (ingest/early.py: DuckDB's, the store's,
    # pydantic's and the ingest modules' imports take ~0.45 s of one CPU, the second CPU idle).
    early = _early_start(args.bundles, Path(args.db))
    try:
        return _ingest_local(args, early)
    finally:
        if early is not None:
            early.close()


def _early_start(names: list[str], db: Path) -> EarlyIngest | None:
    from ..bundle.archive import Limits
    from ..ingest.early import EarlyIngest, kept_bundle

    path = Path(names[0]) if names else None
    if path is None or not path.is_file():
        return None
    bundles_dir = db.parent / "bundles"
    existed = db.exists()  # before this command opens (creates) it

    def known(sha256: str) -> bool:
        # the store keeps a copy of each bundle it holds (pipeline): a hint, not the store's answer
        # (a database beside this one may have kept it), which decides as always
        return existed and kept_bundle(bundles_dir, sha256).exists()

    return EarlyIngest(path, Limits(), known)


# Set by `iolens ingest` once it has closed everything it opened (the store, the bundles' files,
# the early start's threads): the process may then end without the interpreter's finalization
# (cli/__init__.py run(): after a large ingest, the collection of every object the imports made and
# DuckDB's module teardown were ~0.1-0.15 s of one CPU, serial, after the work was done).
closed_all = False


def _ingest_local(args: argparse.Namespace, early: EarlyIngest | None) -> int:
    from ..store.db import StoreError, StoreOpening

    db = Path(args.db)
    # Opened (created, schema applied) on another thread while the ingest modules are imported and
    # the first bundle is read and parsed: started before those imports (pydantic's, the bundle
    # reader's, the pipeline's: ~0.3 s on one core), so that a small bundle does not wait for it.
    opening = StoreOpening(db)
    from ..bundle import BundleError
    from ..ingest import ingest_file
    bundles = _Bundles(args.bundles)
    try:
        for name, path, prefix in bundles:
            print(f"{prefix} ({_human_bytes(path.stat().st_size)}): checking and parsing...", file=sys.stderr,
                  flush=True)
            start = time.perf_counter()
            first = early if early is not None and early.archive == path else None
            try:
                result = ingest_file(opening, path, bundles_dir=db.parent / "bundles", source=name, early=first)
            except StoreError:
                raise
            except BundleError as exc:
                print(f"{prefix}: rejected, nothing stored: {exc}", file=sys.stderr)
                bundles.failed += 1
                continue
            except Exception as exc:  # noqa: BLE001 - one line per bundle, never a traceback; the rest go on
                print(f"{prefix}: rejected, nothing stored: {type(exc).__name__}: {str(exc)[:300]}", file=sys.stderr)
                bundles.failed += 1
                continue
            finally:
                if first is not None:
                    first.close()  # a pass not taken (refused, already stored) stops now
            took = time.perf_counter() - start
            state = "ingested" if result.created else "already present"
            print(f"{prefix}: {state} as {result.capture_id} ({result.label}), {result.runs} runs, {took:.2f} s",
                  file=sys.stderr)
            for w in result.warnings:
                print(f"    warning: {w}", file=sys.stderr)
        opening.result().close()
        global closed_all
        closed_all = True
    except StoreError as exc:
        print(f"iolens ingest: {exc}", file=sys.stderr)
        return 1
    return 1 if bundles.failed else 0


def _multipart(path: Path, boundary: str) -> tuple[list[bytes], int]:
    import mimetypes

    ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{path.name}\"\r\n"
        f"Content-Type: {ctype}\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    return [head, tail], len(head) + path.stat().st_size + len(tail)


def _stream(path: Path, head: bytes, tail: bytes, label: str) -> Iterator[bytes]:
    size = path.stat().st_size
    sent = 0
    last = 0.0
    yield head
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            sent += len(chunk)
            now = time.monotonic()
            if sys.stderr.isatty() and (now - last > 0.2 or sent == size):
                print(f"\r{label}: uploading {100 * sent / max(size, 1):5.1f} %", end="", file=sys.stderr, flush=True)
                last = now
            yield chunk
    if sys.stderr.isatty():
        print(file=sys.stderr)
    yield tail


def _ingest_remote(server: str, bundles: list[str], token: str | None = None) -> int:
    # urllib.request (http.client, email) only where the network is used: `iolens convert` and a
    # local `iolens ingest` start without it.
    import urllib.error
    import urllib.request
    import uuid

    named = _Bundles(bundles)
    for _name, path, label in named:
        boundary = uuid.uuid4().hex
        (head, tail), length = _multipart(path, boundary)
        req = urllib.request.Request(
            f"{server}/api/captures",
            data=_stream(path, head, tail, label),
            method="POST",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "Content-Length": str(length),
                     **({"Authorization": f"Bearer {token}"} if token else {})},
        )
        try:
            with urllib.request.urlopen(req) as resp:
                body = json.load(resp)
        except urllib.error.HTTPError as exc:
            try:
                err = json.load(exc)
                msg = f"{err.get('error')} {json.dumps(err.get('detail'))}"
            except ValueError:
                msg = str(exc)
            print(f"{label}: rejected, nothing stored: {msg}", file=sys.stderr)
            named.failed += 1
            continue
        except urllib.error.URLError as exc:
            early = _early_answer(server, req.headers) if isinstance(exc.reason, OSError) else None
            if early is not None:  # the server refused from the headers and closed while we were sending
                print(f"{label}: rejected, nothing stored: {early}", file=sys.stderr)
                named.failed += 1
                continue
            print(f"{label}: cannot reach {server}: {exc.reason}", file=sys.stderr)
            return 1
        state = "ingested" if body["created"] else "already present"
        print(f"{label}: {state} as {body['id']} ({body['label']}), {body['runs']} runs", file=sys.stderr)
        for w in body.get("warnings", []):
            print(f"    warning: {w}", file=sys.stderr)
    return 1 if named.failed else 0


def _early_answer(server: str, headers: dict[str, str]) -> str | None:
    """The server's answer to the upload's headers alone (a 401 or 413 it sends before reading the
    body, closing the connection under a client still sending): asked again without the body."""
    import http.client
    from urllib.parse import urlsplit

    u = urlsplit(server)
    conn_cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(u.hostname or "127.0.0.1", u.port, timeout=10)
    try:
        conn.putrequest("POST", (u.path.rstrip("/") or "") + "/api/captures")
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        if resp.status < 400:
            return None
        try:
            err = json.loads(resp.read())
            return f"{err.get('error')} {json.dumps(err.get('detail'))}"
        except ValueError:
            return f"HTTP {resp.status}"
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def cmd_export(args: argparse.Namespace) -> int:
    from . import export

    return export.run(args)


def cmd_report(args: argparse.Namespace) -> int:
    from . import report

    return report.run_cli(args)


def cmd_bundle(args: argparse.Namespace) -> int:
    from . import bundle

    return bundle.run(args)


def cmd_convert(args: argparse.Namespace) -> int:
    from . import convert

    return convert.run(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="iolens",
        description="iolens: capture, compare and share storage performance investigations.",
        epilog="Bundles are made on the host under test by `iolens-collect` (see collectors/README.md).",
    )
    p.add_argument("--version", action="version", version=f"iolens {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log queries and requests (default: off)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    db_help = f"DuckDB file (default: $IOLENS_DB or {default_db_path()}); bundles are kept beside it in bundles/"

    s = sub.add_parser("serve", help="serve the API under /api and the app at / on one port")
    s.add_argument("--db", default=str(default_db_path()), help=db_help)
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    s.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn log level (default: info)")
    s.add_argument("--token-file", metavar="FILE",
                   help="uploads and notebook saves need this token (first line of FILE) as "
                        "'Authorization: Bearer TOKEN'; reads never do (default: $IOLENS_TOKEN, else no token)")
    s.add_argument("--public-url", metavar="URL",
                   help="base of the permalinks in exports, e.g. https://iolens.example.org "
                        "(default: $IOLENS_PUBLIC_URL, else the URL each request came to)")
    s.set_defaults(func=cmd_serve)

    i = sub.add_parser("ingest", help="check and store capture bundles (one transaction per bundle)")
    i.add_argument("bundles", nargs="+", metavar="BUNDLE", help="bundle files (.iolens.tar.gz)")
    where = i.add_mutually_exclusive_group()
    where.add_argument("--db", default=str(default_db_path()), help=db_help)
    where.add_argument("--server", metavar="URL",
                       help="upload to a running `iolens serve` instead (e.g. http://127.0.0.1:8000)")
    i.add_argument("--token-file", metavar="FILE",
                   help="with --server: the server's access token, first line of FILE (default: $IOLENS_TOKEN)")
    i.set_defaults(func=cmd_ingest)

    e = sub.add_parser("export", help="a saved notebook as plain text (for email) or one static HTML file")
    e.add_argument("notebook", metavar="NOTEBOOK",
                   help="notebook version id, or its permalink (http://HOST:PORT/n/ID: implies --server)")
    e.add_argument("--format", choices=["text", "html"], default="text",
                   help="text: ASCII, 72 columns, permalink on top; html: one self-contained file (default: text)")
    ewhere = e.add_mutually_exclusive_group()
    ewhere.add_argument("--db", help=f"read the notebook from this DuckDB file (default: $IOLENS_DB or {default_db_path()})")
    ewhere.add_argument("--server", metavar="URL", help="ask a running `iolens serve` (e.g. http://127.0.0.1:8000)")
    e.add_argument("--url", metavar="BASE",
                   help="with --db: base of the permalink printed in the export "
                        "(default: $IOLENS_PUBLIC_URL, else http://127.0.0.1:8000)")
    e.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")
    e.set_defaults(func=cmd_export)

    from . import report

    report.add_parser(sub, str(default_db_path()))
    sub.choices["report"].set_defaults(func=cmd_report)

    from . import bundle as bundle_cli

    bundle_cli.add_parser(sub)
    sub.choices["bundle"].set_defaults(func=cmd_bundle)

    from . import backup

    backup.add_parser(sub, db_help, str(default_db_path()))

    c = sub.add_parser("convert", help="parse a tool's output and print it (iolens convert FORMAT --help)")
    from . import convert

    convert.add_parsers(c)
    c.set_defaults(func=cmd_convert)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
