"""The worker pool of --jobs: order, tasks in flight, priority, large results."""

from __future__ import annotations

import os

import pytest

from foreman_cli import workers


@pytest.mark.parametrize("ahead", [2, 5])
def test_ordered_map_keeps_ahead_tasks_a_worker_in_flight_and_the_order(ahead):
    pulled = []

    def tasks():
        for t in range(-30, 0):
            pulled.append(t)
            yield t
    seen = []
    for r in workers.ordered_map(abs, tasks(), 2, ahead):
        seen.append((r, len(pulled)))
    assert [r for r, _ in seen] == list(range(30, 0, -1))
    # each result is taken once the window is full, and the window refills one task a result
    assert [n for _, n in seen] == [min(30, 2 * ahead + i) for i in range(30)]


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities here")
def test_the_workers_run_nice_steps_below_the_reading_process():
    own = os.nice(0)
    assert list(workers.ordered_map(os.nice, [0] * 6, 2, nice=3)) == [min(own + 3, 19)] * 6
    assert list(workers.ordered_map(os.nice, [0] * 6, 2)) == [own] * 6


@pytest.mark.parametrize("n", [1, 30])
def test_ordered_map_calls_started_once_the_workers_have_their_tasks(n):
    pulled, calls = [], []

    def tasks():
        for t in range(n):
            pulled.append(t)
            yield t
    results = workers.ordered_map(abs, tasks(), 2, 3, started=lambda: calls.append(len(pulled)))
    assert next(results) == 0 and calls == [min(n, 2 * 3)]  # the window filled, before the first result
    assert list(results) == list(range(1, n)) and len(calls) == 1


def _table(n: int):
    import pyarrow as pa
    return pa.table({"n": pa.array(range(n)), "text": pa.array([f"game {i}" for i in range(n)])})


def test_large_results_come_back_whole_and_in_order():
    sizes = [100_000, 5, 300_000, 100_000]
    tables = list(workers.ordered_map(_table, sizes, 2))
    assert [t.num_rows for t in tables] == sizes
    assert [t.equals(_table(n)) for t, n in zip(tables, sizes)] == [True] * 4
