"""The flame graph answer (`GET /api/captures/{id}/flame`) as bytes, kept per selection and format:
the FlameGraph model's JSON (for API consumers) or its columns answer (the page's: flame_wire.py).

A flame graph of 450k nodes is ~11 MB of JSON that took ~1.6 s to make (the grouped query, the
tree, pydantic's validation and encoding), and the page asks for it on every load; the difference
of two captures (`GET /api/compare/flame`: diff_answer) is kept the same way. The answer of a
(capture, selection) only changes when the store does, so its bytes, and their gzip, are kept per
store and reused until the store's next committed write (`Store.generation`: an ingest, a delete,
any write), then dropped. The bytes are pydantic's own encoding of the same `models.FlameGraph`
(`model_dump_json`, done in Rust), so the answer is the one the model describes, byte for byte the
same whether it came from the cache or not; the columns answer encodes the same head and tree
(flame_parts) without the FlameTree model.

At most IOLENS_FLAME_CACHE_MB (default 256) of answers are kept per store, least recently used out
first; an answer bigger than a quarter of that is not kept.

One answer is made once at a time: a request for an answer being made (by another request, or by
the warm-up) waits for it instead of making it again. `warm` makes the whole-capture columns
answer (what the page asks for) of the captures with stacks, newest first, in the background after the server starts (`iolens serve`;
each one when no request has been answered for half a second: api/app.py), so
that the first page load after a start does not wait for the call tree (1.3 s at 450k nodes on
an idle machine); IOLENS_FLAME_WARM=0 turns it off.
"""

from __future__ import annotations

import gzip
import logging
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..store.db import Store
from . import flame as flame_view
from . import flame_wire

log = logging.getLogger("iolens.flame")

# "columns": the page's (flame_wire.py); "json": the FlameGraph model's, for API consumers
Format = Literal["json", "columns"]

# Answers smaller than this are sent as they are (gzip costs more than it saves on loopback).
GZIP_MIN_BYTES = 64 * 1024


def _limit_bytes() -> int:
    try:
        return int(float(os.environ.get("IOLENS_FLAME_CACHE_MB", "256")) * 1e6)
    except ValueError:
        return 256_000_000


@dataclass
class Answer:
    body: bytes
    _gz: bytes | None = field(default=None, repr=False)

    def gzipped(self) -> bytes:
        """The body gzip-compressed (level 1: ~4x smaller for the tree's digits, ~60 MB/s), made once."""
        if self._gz is None:
            self._gz = gzip.compress(self.body, compresslevel=1, mtime=0)
        return self._gz

    @property
    def gzip_made(self) -> bytes | None:
        """The gzip if gzipped() has made it, else None."""
        return self._gz

    @property
    def size(self) -> int:
        return len(self.body) + (len(self._gz) if self._gz else 0)


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = -1
        self.items: OrderedDict[tuple, Answer] = OrderedDict()
        # answers being made: (generation, key) -> the lock its maker holds until it is kept
        self.making: dict[tuple, threading.Lock] = {}

    def get(self, generation: int, key: tuple) -> Answer | None:
        with self.lock:
            if generation != self.generation:
                self.items.clear()
                self.generation = generation
                return None
            a = self.items.get(key)
            if a is not None:
                self.items.move_to_end(key)
            return a

    def put(self, generation: int, key: tuple, a: Answer) -> None:
        limit = _limit_bytes()
        with self.lock:
            if generation != self.generation or a.size > limit // 4:
                return
            self.items[key] = a
            self.items.move_to_end(key)
            total = sum(x.size for x in self.items.values())
            while total > limit and len(self.items) > 1:
                _k, old = self.items.popitem(last=False)
                total -= old.size


_caches: weakref.WeakKeyDictionary[Store, _Cache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def _cache(store: Store) -> _Cache:
    with _caches_lock:
        c = _caches.get(store)
        if c is None:
            c = _caches[store] = _Cache()
        return c


def _encode(store: Store, cid: str, f: flame_view.Filters, fmt: Format) -> Answer:
    if fmt == "json":
        return Answer(flame_view.flame(store, cid, f).model_dump_json().encode())
    head, tree = flame_view.flame_parts(store, cid, f)
    return Answer(flame_wire.encode(head.model_dump_json().encode(), tree.names, tree.name, tree.depth,
                                    tree.values[0], tree.values[1]))


def flame_answer(store: Store, cid: str, f: flame_view.Filters = flame_view.Filters(), fmt: Format = "json") -> Answer:
    """views.flame.flame(store, cid, f) encoded as JSON (fmt "json") or as columns ("columns":
    flame_wire.py), from the cache when the store has not changed since it was made. Raises what
    flame() raises (nothing is kept then)."""
    return _kept(store, ("flame", cid, f, fmt), lambda: _encode(store, cid, f, fmt))


def _encode_diff(store: Store, a: str, b: str, f: flame_view.Filters, runs_a: tuple[str, ...] | None,
                 runs_b: tuple[str, ...] | None, limit: int, range_b: tuple[int | None, int | None] | None,
                 fmt: Format) -> Answer:
    if fmt == "json":
        return Answer(flame_view.diff(store, a, b, f, runs_a, runs_b, limit, range_b).model_dump_json().encode())
    head, t = flame_view.diff_parts(store, a, b, f, runs_a, runs_b, limit, range_b)
    return Answer(flame_wire.encode_diff(head.model_dump_json(exclude={"tree"}).encode(), t.names, t.name, t.depth,
                                         t.self_a, t.self_b, t.samples_a, t.samples_b, t.noise_self, t.noise_total))


def diff_answer(store: Store, a: str, b: str, f: flame_view.Filters = flame_view.Filters(),
                runs_a: tuple[str, ...] | None = None, runs_b: tuple[str, ...] | None = None,
                limit: int = flame_view.DEFAULT_FUNCTIONS, range_b: tuple[int | None, int | None] | None = None,
                fmt: Format = "json") -> Answer:
    """views.flame.diff(...) encoded as JSON (the FlameDiff model's) or as columns
    (flame_wire.encode_diff), kept like flame_answer's: per (both captures, selection, runs of each
    side, limit, side b's range, format) until the store's next write. Made by native code
    (flame.diff_parts, iolens_native.FlameDiffInput); the columns answer encodes the tree's typed
    arrays without a FlameDiffTree model (bench/flame_diff.py, bench/README.md)."""
    key = ("diff", a, b, f, runs_a, runs_b, limit, range_b, fmt)
    return _kept(store, key, lambda: _encode_diff(store, a, b, f, runs_a, runs_b, limit, range_b, fmt))


def kept_flame_answer(store: Store, cid: str, f: flame_view.Filters = flame_view.Filters(),
                      fmt: Format = "json") -> Answer | None:
    """flame_answer()'s answer if it is kept (made since the store's last write), else None: no
    query, no wait (the server answers a kept answer without its thread pool: api/routes/flame.py)."""
    return _cache(store).get(store.generation, ("flame", cid, f, fmt))


def _kept(store: Store, key: tuple, make: Callable[[], Answer]) -> Answer:
    """The answer of `key` from the store's cache, or made by `make` (once at a time) and kept."""
    cache = _cache(store)
    generation = store.generation
    hit = cache.get(generation, key)
    if hit is not None:
        return hit
    with cache.lock:
        lock = cache.making.setdefault((generation, key), threading.Lock())
    with lock:  # another thread making the same answer: wait for it, then take it from the cache
        try:
            hit = cache.get(generation, key)
            if hit is not None:
                return hit
            a = make()
            cache.put(generation, key, a)
            return a
        finally:
            with cache.lock:
                if cache.making.get((generation, key)) is lock:
                    del cache.making[(generation, key)]


def warm(store: Store, stop: threading.Event | None = None, before_each: Callable[[], bool] | None = None) -> list[str]:
    """Make (and gzip) the whole-capture answer of each capture with stacks, newest first, while
    they fit in the cache; stops early when `stop` is set, the store changes or `before_each`
    (called before each answer: the server waits there for a quiet moment) says False. Returns the
    captures made. Errors are logged, never raised: the request makes the answer again and says why."""
    generation = store.generation
    rows = store.query(
        """SELECT c.capture_id FROM captures c
           WHERE EXISTS (SELECT 1 FROM perf_samples s WHERE s.capture_id = c.capture_id)
           ORDER BY c.ingested_at DESC, c.capture_id""").rows
    made: list[str] = []
    used = 0
    for (cid,) in rows:
        if before_each is not None and not before_each():
            break
        if (stop is not None and stop.is_set()) or store.generation != generation:
            break
        try:
            a = flame_answer(store, cid, fmt="columns")
        except Exception:  # noqa: BLE001 - logged; the page's request will say what is wrong
            log.warning("flame answer of capture %s not made ahead", cid, exc_info=True)
            continue
        if len(a.body) >= GZIP_MIN_BYTES:
            a.gzipped()
        used += a.size
        made.append(cid)
        if used > _limit_bytes() // 2:  # leave room for the selections people open
            break
    return made


def wants_gzip(accept_encoding: str | None, a: Answer) -> bool:
    """Send the gzip when the client takes it, for either format: at 451k nodes 1.47 MB of columns
    (9.7 MB plain) or 1.85 MB of JSON (12.7 MB). On loopback too: a server under load sent the
    9.7 MB in ~300 ms, the gzip in ~100 ms, and the browser inflates it off the page's thread."""
    if len(a.body) < GZIP_MIN_BYTES or not accept_encoding:
        return False
    for part in accept_encoding.split(","):
        coding, *params = (x.strip().lower() for x in part.split(";"))
        if coding == "gzip":
            return not any(p.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params)
    return False


_STACKLESS = "flame.captures_without_stacks"


def stackless_known(store: Store) -> frozenset[str] | None:
    """captures_without_stacks as last made, if the store has not been written since; else None."""
    return store.kept_now(_STACKLESS)


def captures_without_stacks(store: Store) -> frozenset[str]:
    """The store's captures without perf samples: their flame answer is a 404 (NoStacks). Kept
    until the store's next write (index.html's preloads ask on every notebook link)."""
    return store.kept(_STACKLESS, lambda: _without_stacks(store))


def _without_stacks(store: Store) -> frozenset[str]:
    rows = store.query(
        """SELECT c.capture_id FROM captures c
           WHERE NOT EXISTS (SELECT 1 FROM perf_samples s WHERE s.capture_id = c.capture_id)""").rows
    return frozenset(cid for (cid,) in rows)
