"""The worker processes of `--jobs`: a pool that maps tasks in order, few in flight, and ends cleanly."""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

DRAIN_SECONDS = 20  # for a task in flight when the pool ends: a batch takes well under a second
TERMINATE_SECONDS = 3


def ordered_map(fn, tasks: Iterable[Any], jobs: int, ahead: int = 2, nice: int = 0,
                started: Callable[[], None] | None = None) -> Iterator[Any]:
    """fn over tasks in `jobs` worker processes, results in task order, few tasks in flight.

    Pool.imap would read the whole input ahead of the workers; a window of `ahead` * jobs tasks
    keeps memory flat whatever the input's size. The workers run `nice` steps below the reading
    process's priority, so that where it is the bottleneck (a load's writes) it never waits for a
    core. `started` is called once the workers have their first tasks.
    """
    tasks = iter(tasks)
    head = list(itertools.islice(tasks, 2))
    if len(head) < 2:  # a small input is done before a pool would have started
        if started is not None:
            started()
        yield from map(fn, head)
        return
    tasks = itertools.chain(head, tasks)
    import multiprocessing  # only for a pool: a one-record run should not pay for it
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    window: deque = deque()
    interrupted = False
    pool = None
    try:
        with _interrupts_held():
            pool = multiprocessing.get_context(method).Pool(jobs, initializer=_start_worker, initargs=(nice,))
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
            _terminate(pool)
        raise
    finally:
        if not interrupted and pool is not None:
            _end_pool(pool, window)


def _end_pool(pool, window: deque) -> None:
    """Let the tasks in flight finish, then close: terminating a pool while a worker writes a
    large result can leave that worker holding the results pipe's lock."""
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


def _terminate(pool) -> None:
    """Pool.terminate, waited for a few seconds at most (it can wait on a lock a killed worker
    held); then the workers are killed and the pool's daemon threads left to the exit."""
    import multiprocessing
    import threading
    ending = threading.Thread(target=pool.terminate, name="foreman-pool-end", daemon=True)
    ending.start()
    ending.join(TERMINATE_SECONDS)
    if ending.is_alive():
        for worker in multiprocessing.active_children():
            worker.kill()


@contextmanager
def _interrupts_held():
    """Hold Ctrl-C back while the pool forks its workers, so that it arrives inside the `try`
    that ends the pool and no worker outlives the reading process."""
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
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # forked with it held: ignored now
    if nice and hasattr(os, "nice"):
        os.nice(nice)
