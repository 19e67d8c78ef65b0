"""The worker processes of `--jobs`: a pool that maps tasks in order, few in flight, and ends cleanly."""

from __future__ import annotations

import itertools
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any


def ordered_map(fn, tasks: Iterable[Any], jobs: int, ahead: int = 2, nice: int = 0,
                started: Callable[[], None] | None = None) -> Iterator[Any]:
    """fn over tasks in `jobs` worker processes, results in task order, few tasks in flight.

    Pool.imap would read the whole input ahead of the workers; a window of `ahead` * jobs tasks
    keeps memory flat whatever the input's size. The workers run `nice` steps below the reading
    process's priority: where it is the bottleneck (a load's writes), it then never waits for a core.
    `started` is called once the workers have their first tasks, before the first result is awaited.
    """
    tasks = iter(tasks)
    head = list(itertools.islice(tasks, 2))
    if len(head) < 2:
        # A small input is done before a pool of workers would have started.
        if started is not None:
            started()
        yield from map(fn, head)
        return
    tasks = itertools.chain(head, tasks)
    import multiprocessing  # only for a pool: a one-record run should not pay for it
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    window: deque = deque()
    interrupted = False
    pool = None
    try:
        with _interrupts_held():
            pool = _pool_class()(jobs, initializer=_start_worker, initargs=(nice,), context=ctx)
        for task in itertools.islice(tasks, ahead * jobs):
            window.append(pool.apply_async(fn, (task,)))
        if started is not None:
            started()
        while window:
            yield window.popleft().get()
            for task in itertools.islice(tasks, 1):  # the next task takes the place of the result taken
                window.append(pool.apply_async(fn, (task,)))
    except KeyboardInterrupt:
        interrupted = True
        if pool is not None:
            _terminate(pool)  # at once
        raise
    finally:
        if not interrupted and pool is not None:
            _end_pool(pool, window)


def _pool_class():
    """multiprocessing's Pool, its results pipe wider and its worker handler not spinning.

    The handler thread waits on the workers' exits, the pool's own notices and the results pipe
    (since bpo-35493); while a result sits in that pipe, the wait returns at once, so the thread
    loops until the result thread has read it, fighting the reading process for the GIL
    (measured: 0.19 s of the reading process's CPU in a 1.1 s `validate --jobs 2`, 0.10 s without
    it). A result needs nothing of that thread: a worker's exit and the pool's notices still wake
    it, and ThreadPool's own override leaves the results pipe out the same way.

    A pipe holds 64 kB, so a worker wrote a batch's result (about 250 kB for validate) in pieces,
    each waiting for the reading process's result thread to get the GIL and read; at 1 MB the
    worker's wait between tasks halves (0.04 to 0.02 s a run). With workers forked, the results
    travel framed, their large buffers beside the pickle (framed), and are read whole
    (frame_reader). Where a Python lacks these methods, the workers are spawned (the queue would
    be pickled) or the system refuses the size, that part of the pool is Pool's own.
    """
    global _QuietPool
    if _QuietPool is None:
        import multiprocessing.pool
        import multiprocessing.queues

        class ResultsQueue(multiprocessing.queues.SimpleQueue):
            def put(self, obj):
                pieces = framed(obj)  # before the lock, as SimpleQueue pickles
                with self._wlock:
                    write_all(self._writer.fileno(), pieces)

        class QuietPool(multiprocessing.pool.Pool):
            def _get_sentinels(self):
                return [self._change_notifier._reader]

            def _setup_queues(self):
                framing = (self._ctx.get_start_method() == "fork" and hasattr(os, "readv")
                           and hasattr(os, "writev"))
                if not framing:
                    super()._setup_queues()
                else:
                    self._inqueue = self._ctx.SimpleQueue()
                    self._outqueue = ResultsQueue(ctx=self._ctx)
                    self._quick_put = self._inqueue._writer.send
                    self._quick_get = frame_reader(self._outqueue._reader)  # what the result thread reads with
                _widen(self._outqueue._writer)

        _QuietPool = QuietPool
    return _QuietPool


def _widen(conn) -> None:
    try:
        import fcntl
        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, RESULTS_PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # not Linux, or above the system's pipe-max-size: the default pipe works, a little slower


RESULTS_PIPE_BYTES = 1 << 20  # Linux's default pipe-max-size, which any user may ask for


def framed(obj: Any) -> list[Any]:
    """obj as the pieces of one message of the results pipe: pickled (protocol 5), its large
    buffers (a load's Arrow columns) beside the pickle rather than copied into it.

    The message is what Connection frames (its size, then itself): the count of parts, each
    part's size, the pickle, then each buffer, every buffer starting a multiple of BUFFER_ALIGN
    bytes in. Measured on a load's batch (5.9 MB pickled whole): 0.87 MB of pickle and 5.0 MB in
    six buffers, pickled in 2.0 ms against 6.2; the reading process no longer copies them out.
    """
    import io
    import pickle
    import struct
    from multiprocessing.reduction import ForkingPickler
    aside: list[memoryview] = []

    def beside(pb) -> bool:
        view = pb.raw()  # pickle refuses a buffer that is not contiguous before it asks
        if view.nbytes < OUT_OF_BAND_BYTES or len(aside) >= MAX_BUFFERS:
            return True
        aside.append(view)
        return False

    stream = io.BytesIO()
    pickler = pickle.Pickler(stream, 5, buffer_callback=beside)  # ForkingPickler takes no callback:
    pickler.dispatch_table = ForkingPickler(stream).dispatch_table  # its reducers, on a pickler that does
    pickler.dump(obj)
    pickled = stream.getbuffer()
    parts = [pickled, *aside]
    index = struct.pack(f"!I{len(parts)}Q", len(parts), *(p.nbytes for p in parts))
    pieces: list[Any] = [index, pickled]
    at = len(index) + pickled.nbytes
    for view in aside:
        pad = -at % BUFFER_ALIGN
        pieces += [bytes(pad), view]
        at += pad + view.nbytes
    size = struct.pack("!i", at) if at < 0x7FFFFFFF else struct.pack("!iQ", -1, at)
    return [size, *pieces]


def unframed(message: bytearray) -> Any:
    """The object of one message that `framed` made, its buffers views of the message itself."""
    import struct
    from multiprocessing.reduction import ForkingPickler
    view = memoryview(message)
    count, = struct.unpack_from("!I", message)
    sizes = struct.unpack_from(f"!{count}Q", message, 4)
    at = 4 + 8 * count
    pickled = view[at:at + sizes[0]]
    at += sizes[0]
    buffers = []
    for n in sizes[1:]:
        at += -at % BUFFER_ALIGN
        buffers.append(view[at:at + n])
        at += n
    return ForkingPickler.loads(pickled, buffers=buffers)


OUT_OF_BAND_BYTES = 64 << 10  # a smaller buffer is copied into the pickle: cheaper than a part of its own
MAX_BUFFERS = 256  # parts beside the pickle at most, well under any system's limit of writev's pieces
BUFFER_ALIGN = 64  # Arrow's alignment for buffers


def write_all(fd: int, pieces: list[Any]) -> None:
    """Write every piece, in order, to fd (writev takes what fits in the pipe each time)."""
    views = [memoryview(p).cast("B") for p in pieces if len(p)]
    while views:
        n = os.writev(fd, views)
        while views and n >= views[0].nbytes:
            n -= views.pop(0).nbytes
        if n:
            views[0] = views[0][n:]


def frame_reader(conn) -> Callable[[], Any]:
    """What the result thread reads with: each message of `framed` read whole into one buffer of
    its size, then unframed.

    Connection.recv reads a message a pipe's worth at a time, each into a new bytes the size of
    all that is left (allocated, then shrunk), and copies each into a BytesIO: for a load's
    results of 4-6 MB, five or six such allocations and two copies a message (measured on 50
    results of 4 MB through a 1 MB pipe: 0.16-0.44 s of the reading process's CPU and 61,000
    page faults, against 0.05 s and 3,200). The end of the pipe is Connection's: EOFError at a
    message's start, OSError inside one.
    """
    import struct
    fd = conn.fileno()
    buffers = ReceiveBuffers()

    def exactly(n: int) -> bytearray:
        buf = buffers.take(n)
        view = memoryview(buf)[:n]
        got = 0
        while got < n:
            k = os.readv(fd, [view[got:]])
            if k == 0:
                raise EOFError if got == 0 else OSError("got end of file during message")
            got += k
        return buf

    def recv() -> Any:
        size, = struct.unpack("!i", exactly(4))
        if size == -1:  # 2 GiB or more: its size follows in 8 bytes
            size, = struct.unpack("!Q", exactly(8))
        return unframed(exactly(size))

    return recv


class ReceiveBuffers:
    """The buffers the result thread reads messages into, each used again once nothing holds a
    view of it: a message's objects are views of its buffer (`unframed`), alive until the batch
    is written, and a new buffer for each was a page fault every 4 kB.

    Measured on a load of 200 MB with the records' text taken from the file (store._text_views),
    against neither, sixteen interleaved pairs: the load faster in 13 (its median 6.6% less), the
    reading process's CPU 7% less, its page faults 195,000 -> 135,000. Alone, without the text
    from the file (messages of 6 MB, more of them alive at once), it gained 1%. It keeps no more
    buffers than were in use at once.
    """

    def __init__(self, most: int = 16, smallest: int = 1 << 20, largest: int = 32 << 20) -> None:
        self.most, self.smallest, self.largest = most, smallest, largest
        self.spare: list[bytearray] = []

    def take(self, n: int) -> bytearray:
        """A buffer of at least n bytes that nothing else holds: one kept, or a new one."""
        if not self.smallest <= n <= self.largest:
            return bytearray(n)  # small ones cost little, and the largest are not worth holding on to
        free = None
        for i in range(len(self.spare)):  # by place: a loop variable would be one more reference
            # Held only by the list and by the call: no view of it is alive.
            if sys.getrefcount(self.spare[i]) == 2:
                if len(self.spare[i]) >= n:
                    return self.spare[i]
                free = i if free is None else free
        buf = bytearray(n + n // 8)  # room for a slightly larger message next time
        if free is not None:
            self.spare[free] = buf
        elif len(self.spare) < self.most:
            self.spare.append(buf)
        return buf


_QuietPool = None


def _end_pool(pool, window: deque) -> None:
    """End a pool in order: let the tasks in flight finish and their results be read, then close.

    Pool.terminate while a worker is writing a large result (a batch's tables) to the pipe can
    deadlock: the worker holds the pipe's lock and waits for a reader, and terminate waits for the
    lock (seen once in CI, on a load that stopped at a full disk). A Ctrl-C still terminates at
    once (ordered_map).
    """
    try:
        for r in window:
            r.wait(DRAIN_SECONDS)
        if all(r.ready() for r in window):
            pool.close()
            pool.join()
            return
    except KeyboardInterrupt:
        pass  # a second Ctrl-C: end it now
    _terminate(pool)


DRAIN_SECONDS = 20  # for a task in flight when the pool ends: a batch takes well under a second


def _terminate(pool) -> None:
    """Pool.terminate, waited for a few seconds at most; then the workers are killed and the pool
    is left to the end of the process.

    Pool.terminate can wait forever on a lock that a worker held when it was killed: the pipe's
    for results, when it died half way through sending one (seen in CI: a Ctrl-C of `validate`
    0.3 s in hung, its task handler waiting on that lock). The pool's threads are daemons, so a
    stuck one does not hold the exit.
    """
    import multiprocessing
    import threading
    ending = threading.Thread(target=pool.terminate, name="foreman-pool-end", daemon=True)
    ending.start()
    ending.join(TERMINATE_SECONDS)
    if ending.is_alive():
        for worker in multiprocessing.active_children():
            worker.kill()


TERMINATE_SECONDS = 3


@contextmanager
def _interrupts_held():
    """Hold Ctrl-C back while the pool forks its workers; it arrives as the block ends.

    A Ctrl-C that landed inside Pool's start raised there, before ordered_map could end the pool,
    and a worker already forked could outlive the reading process, holding its stderr (seen in a
    stress run of Ctrl-Cs 0.2-0.35 s into `validate`: twice in 160). Held, it arrives once the pool
    exists, inside the `try` that ends it. The workers, forked with it held, ignore it from their
    first step (_ignore_interrupts).
    """
    import signal
    import threading
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _start_worker(nice: int) -> None:
    """A worker's first step: Ctrl-C left to the parent, the priority lowered by `nice`."""
    _ignore_interrupts()
    if nice and hasattr(os, "nice"):
        os.nice(nice)


def _ignore_interrupts() -> None:
    """In a worker: Ctrl-C is the parent's to handle (one message, the pool ended, exit 130)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # forked with it held: ignored now
