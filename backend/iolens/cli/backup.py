"""`iolens backup DIR`: a consistent copy of the database and the kept bundles, from a running
server (`--server URL`, through GET /api/backup) or from a database no process holds (`--db`).

DIR then holds `iolens.duckdb`, `bundles/` and `backup.json` (what was copied, when). Restore:
serve it (`iolens serve --db DIR/iolens.duckdb`), or stop the server and copy DIR's files over
its data directory. Nothing is left half-written: the copy is made in DIR/.partial and renamed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from .config import read_token

DB_NAME = "iolens.duckdb"


def cmd_backup(args: argparse.Namespace) -> int:
    dest = Path(args.dir)
    if (dest / DB_NAME).exists():
        print(f"iolens backup: {dest / DB_NAME} exists: give an empty or new directory", file=sys.stderr)
        return 1
    partial = dest / ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        summary = (_from_server(args.server.rstrip("/"), read_token(args.token_file, "backup"), partial)
                   if args.server else _from_db(Path(args.db), partial))
        if summary is None:
            return 1
        _check(partial / DB_NAME, summary)
        for p in sorted(partial.iterdir()):
            p.replace(dest / p.name)
    except _Failed as exc:
        print(f"iolens backup: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    print(f"iolens backup: {dest}: {summary['captures']} captures, {summary['notebook_versions']} notebook "
          f"versions, {summary['bundles']} bundles"
          + (f"; bundles missing on the server: {', '.join(summary['bundles_missing'])}" if summary["bundles_missing"]
             else ""), file=sys.stderr)
    print(f"iolens backup: restore with `iolens serve --db {dest / DB_NAME}`", file=sys.stderr)
    return 0


class _Failed(Exception):
    pass


def _from_server(server: str, token: str | None, out: Path) -> dict | None:
    import tarfile  # here, not at the top: every `iolens` command builds this module's parser
    import urllib.error
    import urllib.request

    req = urllib.request.Request(f"{server}/api/backup", headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req) as resp, tarfile.open(fileobj=resp, mode="r|") as tar:
            for member in tar:
                name = member.name
                if not member.isfile() or not (name in (DB_NAME, "backup.json")
                                               or (name.startswith("bundles/") and "/" not in name[8:]
                                                   and name.endswith(".iolens.tar"))):
                    raise _Failed(f"unexpected member {name!r} in the server's backup")
                tar.extract(member, out, filter="data")
    except urllib.error.HTTPError as exc:
        try:
            err = json.load(exc).get("error")
        except ValueError:
            err = str(exc)
        raise _Failed(f"{server} refused the backup: {exc.code} {err}") from None
    except urllib.error.URLError as exc:
        raise _Failed(f"cannot reach {server}: {exc.reason}") from None
    except (tarfile.TarError, OSError) as exc:
        raise _Failed(f"the backup stream from {server} broke off: {exc}") from None
    return json.loads((out / "backup.json").read_text())


def _from_db(db: Path, out: Path) -> dict:
    from ..api.routes.backup import backup_files
    from ..store.db import Store, StoreError

    try:
        store = Store(db, sandbox_connections=0)
    except StoreError as exc:
        raise _Failed(f"{exc}") from None
    try:
        store.snapshot(out / DB_NAME)
        files, summary = backup_files(store, out / DB_NAME, db.parent / "bundles")
    finally:
        store.close()
    (out / "bundles").mkdir(exist_ok=True)
    for name, path in files[1:]:
        shutil.copyfile(path, out / name)
    (out / "backup.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _check(db: Path, summary: dict) -> None:
    """The copy opens and holds what backup.json says."""
    import duckdb

    try:
        con = duckdb.connect(str(db), read_only=True)
        try:
            n = con.execute("SELECT count(*) FROM captures").fetchone()
            k = con.execute("SELECT count(*) FROM notebook_versions").fetchone()
        finally:
            con.close()
    except duckdb.Error as exc:
        raise _Failed(f"the copied database does not open: {exc}") from None
    if (n and n[0], k and k[0]) != (summary["captures"], summary["notebook_versions"]):
        raise _Failed(f"the copied database holds {n} captures and {k} notebook versions, "
                      f"backup.json says {summary['captures']} and {summary['notebook_versions']}")


def add_parser(sub: argparse._SubParsersAction, db_help: str, default_db: str) -> None:
    b = sub.add_parser("backup", help="copy the database and the kept bundles to DIR, consistent while the server runs")
    b.add_argument("dir", metavar="DIR", help="new or empty directory: gets iolens.duckdb, bundles/, backup.json")
    where = b.add_mutually_exclusive_group()
    where.add_argument("--db", default=default_db, help=db_help + " (when no server holds it)")
    where.add_argument("--server", metavar="URL", help="back up a running `iolens serve` (e.g. http://127.0.0.1:8000)")
    b.add_argument("--token-file", metavar="FILE",
                   help="with --server: the server's access token, first line of FILE (default: $IOLENS_TOKEN)")
    b.set_defaults(func=cmd_backup)
