"""Worker processes for reading and parsing files, started on demand and kept warm.

Parsing is pure Python. In a thread it holds the interpreter lock for most of
its time, and an open window's UI thread must take that lock for every
callback Qt makes into Python: a burst of outside edits parsed beside the
window freezes it. Parsing in other processes leaves the lock to the window.

Starting workers costs most of a second (the forkserver imports the engine),
so a pool that served one batch stays up for `idle_s` in case more follows
(a `git pull` arrives as several watcher batches), then shuts down so the
processes do not hold memory while the vault is quiet.

Every worker dies with the process that started the pool, even one killed
with SIGKILL (docs/decisions.md, "Helper processes die with us"): the pool
hands each worker the read end of a pipe, a lifeline, whose write end only
the pool's own process holds; a thread in the worker waits for its EOF and
ends the worker. The forkserver and the resource tracker that multiprocessing
starts beside the pool then exit by themselves, as their own pipes close.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.connection import Connection

PRELOAD = ["knowledge_desktop.engine.reconcile"]


class WorkerPool:
    def __init__(self, idle_s: float = 30.0, max_workers: int = 8) -> None:
        self.idle_s = idle_s
        self.max_workers = max_workers
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._lifeline: tuple[Connection, Connection] | None = None
        """(read end, write end) of the pipe whose EOF ends the workers (`_watch_parent`)."""
        self._timer: threading.Timer | None = None
        self._users = 0

    @property
    def warm(self) -> bool:
        """Whether workers are up (using them now costs no start-up)."""
        return self._executor is not None

    def acquire(self) -> ProcessPoolExecutor:
        """The executor, started if needed; pair with `release`."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._executor is None:
                # Imported here: most processes never parse in workers (issue 28 §3).
                from concurrent.futures import ProcessPoolExecutor

                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload(PRELOAD)
                workers = max(1, min(os.cpu_count() or 1, self.max_workers))
                # Kept open here until the pool is shut down: workers may start later, on demand.
                self._lifeline = context.Pipe(duplex=False)
                self._executor = ProcessPoolExecutor(
                    max_workers=workers,
                    mp_context=context,
                    initializer=_watch_parent,
                    initargs=(self._lifeline[0],),
                )
            self._users += 1
            return self._executor

    def release(self, broken: bool = False) -> None:
        """Done with the executor: shut it down after `idle_s` unless used again.

        `broken` (the caller was interrupted mid-map) shuts it down at once,
        dropping queued work, so a cancelled read leaves nothing running.
        """
        with self._lock:
            self._users -= 1
            if broken:
                self._shutdown_locked(cancel=True)
            elif self._users == 0 and self._executor is not None:
                self._timer = threading.Timer(self.idle_s, self._idle)
                self._timer.daemon = True
                self._timer.start()

    def _idle(self) -> None:
        with self._lock:
            if self._users == 0:
                self._shutdown_locked(cancel=False)

    def _shutdown_locked(self, cancel: bool) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=cancel)
        lifeline, self._lifeline = self._lifeline, None
        for end in lifeline or ():
            end.close()  # after the workers stopped: closing it sooner would end them mid-task

    def close(self) -> None:
        """Stop the workers now (the vault is closing)."""
        with self._lock:
            self._shutdown_locked(cancel=True)


def _watch_parent(lifeline: Connection) -> None:
    """Worker initializer: end this worker once the pool's process is gone.

    A killed parent leaves its workers blocked for good on their task queue
    (each holds that queue's write end itself), and they keep the forkserver,
    the resource tracker and the parent's stdout/stderr pipes alive with them.
    Neither the parent id nor `PR_SET_PDEATHSIG` tells reliably: our parent
    is the forkserver, not the pool's process, and the forkserver's own parent
    is whichever thread first started a pool (the death signal follows that
    thread, which may end long before the process). The lifeline's EOF comes
    exactly when the last holder of its write end, the pool's process, exits.
    """
    threading.Thread(target=_exit_at_eof, args=(lifeline,), name="lifeline", daemon=True).start()


def _exit_at_eof(lifeline: Connection) -> None:
    try:
        while True:
            lifeline.recv_bytes()  # nothing is ever sent: this returns only at EOF (raises)
    except (EOFError, OSError):
        pass
    os._exit(1)  # no clean-up to run: whoever wanted the results is gone
