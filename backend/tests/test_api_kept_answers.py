"""The answers a notebook's first render waits for (its flame graph, the capture list, health) are
sent from the event loop once they are kept, with no trip through the thread pool: each trip is a
wake-up of another thread and back, which a loaded machine delays (the 51k flame notebook's page
loads under load: 100-400 ms for these answers, 10-60 ms without the trips; api/routes/flame.py).
After a write they are made again (in the pool) and show it."""

from __future__ import annotations

import anyio.to_thread
from server import running_server
from test_flame_api import A_RUNS, B_RUNS, perf_bundle, upload

PAGE = ("/api/health", "/api/captures", "/api/captures/{id}/flame?format=columns")


def test_kept_answers_skip_the_thread_pool_until_a_write(tmp_path, monkeypatch):
    trips: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counting(func, *args, **kwargs):
        trips.append(getattr(func, "__name__", repr(func)))
        return await run_sync(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    with running_server(tmp_path / "data", warm_flame=False) as client:
        a = upload(client, perf_bundle(tmp_path, "before", A_RUNS))
        urls = [u.format(id=a) for u in PAGE]
        trips.clear()
        first = [client.get(u) for u in urls]
        assert [r.status_code for r in first] == [200, 200, 200]
        assert trips, "the first answers are made in the thread pool"
        trips.clear()
        again = [client.get(u) for u in urls]
        assert trips == []
        assert [r.content for r in again] == [r.content for r in first]

        # a write: the count and the list show the new capture, made again in the pool
        b = upload(client, perf_bundle(tmp_path, "after", B_RUNS))
        trips.clear()
        assert client.get("/api/health").json()["captures"] == 2
        assert {c["id"] for c in client.get("/api/captures").json()} == {a, b}
        assert client.get(f"/api/captures/{b}/flame?format=columns").status_code == 200
        assert len(trips) >= 3
