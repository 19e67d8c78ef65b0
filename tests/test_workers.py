"""The worker pool of --jobs: order, tasks in flight, priority, its pipe and how its results are read."""

from __future__ import annotations

import os
import pickle
import struct
import sys

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


def test_the_pool_does_not_spin_while_a_result_is_in_the_pipe(monkeypatch):
    """Pool's worker handler returned at once from its wait while a result was in the results
    pipe, and so looped through every large result's transfer, taking CPU and the GIL from the
    reading process (5,662 rounds for 40 results of 4 MB); now only exits and notices wake it."""
    import multiprocessing.pool
    wakes = []
    wait = multiprocessing.pool.Pool._wait_for_updates
    monkeypatch.setattr(multiprocessing.pool.Pool, "_wait_for_updates",
                        staticmethod(lambda *a, **k: wakes.append(1) or wait(*a, **k)))
    assert [len(r) for r in workers.ordered_map(bytes, [1_000_000] * 20, 2)] == [1_000_000] * 20
    assert len(wakes) < 20, len(wakes)


@pytest.mark.skipif(sys.platform != "linux", reason="pipe sizes are Linux's")
def test_the_results_pipe_holds_a_batch_of_results():
    import fcntl
    pool = workers._pool_class()(1)
    try:
        assert fcntl.fcntl(pool._outqueue._writer.fileno(), fcntl.F_GETPIPE_SZ) == workers.RESULTS_PIPE_BYTES
        assert pool.apply(abs, (-3,)) == 3
    finally:
        pool.terminate()


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


def _sent(payloads, raw_tail: bytes = b""):
    """A pipe's reading end after another process wrote each payload framed, then `raw_tail` as
    it is, then closed its end."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(reader)
            for p in payloads:
                workers.write_all(writer, workers.framed(p))
            workers.write_all(writer, [raw_tail])
        finally:
            os._exit(0)
    os.close(writer)
    return os.fdopen(reader, "rb", buffering=0), pid


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a pipe from a forked process")
def test_results_framed_then_read_whole_are_what_was_sent():
    """Messages smaller than, as large as and several times a pipe's size (written in pieces),
    Arrow tables with buffers beside the pickle among them, read whole are the objects sent, in
    order; the end of the pipe is EOFError, as Connection.recv says it."""
    payloads = [None, 7, b"", "é" * 10, os.urandom(70_000), bytearray(os.urandom(100_000)), list(range(100_000)),
                os.urandom(3 << 20), {"t": os.urandom(5 << 20)}, _table(10), _table(300_000), [_table(5), _table(200_000)]]
    reader, pid = _sent(payloads)
    recv = workers.frame_reader(reader)
    try:
        got = [recv() for _ in payloads]
        assert got[:-3] == payloads[:-3]
        assert got[-3].equals(_table(10)) and got[-2].equals(_table(300_000))
        assert [t.num_rows for t in got[-1]] == [5, 200_000] and got[-1][1].equals(_table(200_000))
        with pytest.raises(EOFError):
            recv()
    finally:
        os.waitpid(pid, 0)
        reader.close()


def test_a_large_buffer_travels_beside_the_pickle_a_small_one_in_it():
    import struct
    table = _table(300_000)
    large = sorted(b.size for column in table.columns for chunk in column.chunks for b in chunk.buffers()
                   if b is not None and b.size >= workers.OUT_OF_BAND_BYTES)
    big, small = workers.framed(table), workers.framed(_table(10))
    size, = struct.unpack("!i", big[0])
    assert size == sum(memoryview(p).nbytes for p in big[1:])
    count, = struct.unpack_from("!I", big[1])
    pickled, *aside = struct.unpack_from(f"!{count}Q", big[1], 4)
    assert len(large) == 3 and sorted(aside) == large and pickled < 5_000  # the numbers, the text's offsets and bytes
    assert struct.unpack_from("!I", small[1]) == (1,)  # all in the pickle
    at = len(big[1]) + pickled
    for pad, piece in zip(big[3::2], big[4::2]):
        at += len(pad)
        assert at % workers.BUFFER_ALIGN == 0
        at += memoryview(piece).nbytes
    assert at == size


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a pipe from a forked process")
def test_a_result_cut_short_is_an_os_error_and_a_long_size_is_read():
    import struct
    message = b"".join(bytes(p) for p in workers.framed(("long", 3))[1:])
    long_framed = struct.pack("!iQ", -1, len(message)) + message  # how 2 GiB and more is framed
    reader, pid = _sent([1], long_framed + struct.pack("!i", 1000) + b"only part of it")
    recv = workers.frame_reader(reader)
    try:
        assert recv() == 1 and recv() == ("long", 3)
        with pytest.raises(OSError, match="end of file during message"):
            recv()
    finally:
        os.waitpid(pid, 0)
        reader.close()


def test_the_pool_frames_its_results_and_reads_them_whole(monkeypatch):
    made = []
    real_reader = workers.frame_reader
    monkeypatch.setattr(workers, "frame_reader", lambda conn: made.append(conn) or real_reader(conn))
    tables = list(workers.ordered_map(_table, [100_000, 5, 300_000, 100_000], 2))
    assert [t.num_rows for t in tables] == [100_000, 5, 300_000, 100_000] and tables[2].equals(_table(300_000))
    assert len(made) == 1  # the result thread read with it, so what came was framed: unframed, it would not parse


def test_a_receive_buffer_is_used_again_only_once_no_view_of_it_is_alive():
    bufs = workers.ReceiveBuffers(most=2, smallest=100, largest=10_000)
    first = bufs.take(1000)
    kept, view = id(first), memoryview(first)[10:20]  # what an unframed result holds of it
    del first
    second = id(bufs.take(1000))
    assert second != kept  # a view of the first is alive
    del view
    assert id(bufs.take(900)) == kept  # nothing holds it now, and it is large enough
    bigger = bufs.take(1500)  # neither kept one is large enough: a larger one takes the first's place
    assert bigger is bufs.spare[0] and len(bigger) >= 1500 and len(bufs.spare) == 2
    del bigger
    assert len(bufs.take(50)) == 50 and len(bufs.take(20_000)) == 20_000 and len(bufs.spare) == 2  # never kept
    held = [bufs.take(1000) for _ in range(3)]  # more at once than it keeps
    assert len(bufs.spare) == 2 and len({id(b) for b in held}) == 3


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a pipe from a forked process")
def test_messages_are_read_into_buffers_used_again_never_under_a_live_result(monkeypatch):
    taken = []

    class Recording(workers.ReceiveBuffers):
        def take(self, n):
            buf = super().take(n)
            if n >= self.smallest:
                taken.append(id(buf))
            return buf

    monkeypatch.setattr(workers, "ReceiveBuffers", Recording)
    reader, pid = _sent([_table(300_000 + i) for i in range(6)])
    recv = workers.frame_reader(reader)
    try:
        kept = recv()  # alive to the end: its buffer is never read into again
        for i in range(1, 6):
            got = recv()
            assert got.equals(_table(300_000 + i))
            del got
        assert kept.equals(_table(300_000))
    finally:
        os.waitpid(pid, 0)
        reader.close()
    assert len(taken) == 6 and taken[0] not in taken[1:] and len(set(taken)) == 2
