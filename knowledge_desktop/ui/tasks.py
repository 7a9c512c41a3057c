"""Running engine work off the UI thread.

Every engine call runs on a QThreadPool worker; its result comes back to the
main thread through a queued signal (Anki's `QueryOp` idea). Errors split by
cause (qutebrowser's known-error/bug split): environment errors (the engine's
`KnownError` and the operating system's `OSError`) arrive as a one-line message
the user can act on; anything else is a bug and arrives as a traceback for the
crash dialog.

`Runner.submit(..., key=...)` keeps only the newest request per key: a pane
that asks again before the previous answer arrived (a search box as you
type, a selection that moves on) never sees the stale answer, and a request
still queued when a newer one of its key arrives is never run: during a burst
of changes each whole-vault view queries once for the latest state, not once
per change.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal

from knowledge_desktop.engine.errors import KnownError
from knowledge_desktop.ui.process import background_thread

BACKGROUND_THREADS = 3
"""The graph load and the freshness check run side by side (see `Runner.background`), and
beside them the Related line's first embedding of a vault, which can take minutes."""

URGENT = 1
"""The QThreadPool priority of an urgent request (others have 0)."""

KNOWN_ERRORS: tuple[type[BaseException], ...] = (KnownError, OSError)
"""What a worker reports as a message rather than a crash: the engine's `KnownError`
(a vault, request or cancel problem it has words for) and `OSError`, which is the
operating system's own way of saying the environment failed (a file vanished, the
disk is full, a permission is missing) — not a bug in this program."""


class _Request:
    __slots__ = ("key", "on_done", "on_dropped", "on_failed")

    def __init__(
        self,
        key: str | None,
        on_done: Callable[[Any], None],
        on_failed: Callable[[str], None] | None,
        on_dropped: Callable[[Any], None] | None,
    ) -> None:
        self.key = key
        self.on_done = on_done
        self.on_failed = on_failed
        self.on_dropped = on_dropped


class _Relay(QObject):
    """Carries one task's outcome, tagged with its serial, to the Runner's thread."""

    succeeded = Signal(int, object)
    failed = Signal(int, str)
    crashed = Signal(int, str)
    skipped = Signal(int)


class _Job:
    """One request's work, handed to the pool as a plain callable, not a QRunnable.

    PySide lets go of a callable as soon as it has run, on the worker, before the pool
    counts that thread idle: once `waitForDone` returns, no finished job holds anything.
    A QRunnable subclass is not let go so: when its answer was taken on the UI thread
    before the worker had finished with it (the usual case), its Python object stayed
    referenced from the pool's wrapper after Qt deleted it (199 of 200 jobs in such a
    loop on the global pool), holding its work, its callbacks and, through them, the
    Runner: a cycle with the Runner's own pool that only a garbage collection undid,
    and on the window's pool, the global one, a leak for the life of the process."""

    __slots__ = ("closed", "dispose", "overtaken", "relay", "serial", "work")

    def __init__(
        self,
        serial: int,
        work: Callable[[], Any],
        relay: _Relay,
        overtaken: Callable[[], bool] | None,
        dispose: Callable[[Any], None] | None,
        closed: Callable[[], bool],
    ) -> None:
        self.serial = serial
        self.work = work
        self.relay = relay
        self.overtaken = overtaken
        self.dispose = dispose
        self.closed = closed

    def __call__(self) -> None:
        background_thread()
        if self.overtaken is not None and self.overtaken():
            # A newer request of the same key was submitted while this one
            # queued: its answer would be dropped, so the work is not done.
            self.relay.skipped.emit(self.serial)
            return
        try:
            result = self.work()
        except KNOWN_ERRORS as exc:
            self.relay.failed.emit(self.serial, str(exc))
        except Exception:
            self.relay.crashed.emit(self.serial, traceback.format_exc())
        else:
            if self.dispose is not None and self.closed():
                # The window is closing: nobody will take this answer, and the queued
                # signal may never be delivered, so what it holds is released here.
                self.dispose(result)
                self.relay.skipped.emit(self.serial)
                return
            self.relay.succeeded.emit(self.serial, result)


class Runner(QObject):
    """The window's one gateway to worker threads.

    Outcomes reach the Runner's own slots (it lives on the UI thread), so
    Qt queues them there whatever thread the worker ran on; a plain callable
    connected without a receiver would run on the worker instead.
    `failed` carries a message for the status bar; `crashed` a traceback for
    the crash dialog. Panes pass their own `on_failed` when a failure means
    something to them (a search with a bad filter), else the window shows it.
    """

    failed = Signal(str)
    crashed = Signal(str)
    busy_changed = Signal(int)

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self.background = QThreadPool(self)
        """Long work that follows opening a vault (the freshness check, loading the graph,
        building the search text) runs here, so it never holds the threads the panes and
        the search box need: at 100k records it takes the pool's two threads for
        seconds, and a search typed meanwhile waited for them."""
        self.background.setMaxThreadCount(BACKGROUND_THREADS)
        self._relay = _Relay(self)
        self._relay.succeeded.connect(self._succeeded)
        self._relay.failed.connect(self._failed)
        self._relay.crashed.connect(self._crashed)
        self._relay.skipped.connect(self._take)
        self._pending: dict[int, _Request] = {}
        self._latest: dict[str, int] = {}
        self._serial = 0
        self._closed = False
        self.guard: Callable[[Callable[[], Any]], Any] | None = None
        """Wraps each job's work when set: the window sets the open vault's `repairing`, so
        a query that meets a damaged state.sqlite is answered after the engine repaired it,
        instead of failing with a message asking to reopen the vault."""

    @property
    def running(self) -> int:
        return len(self._pending)

    def submit(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None],
        on_failed: Callable[[str], None] | None = None,
        *,
        key: str | None = None,
        on_dropped: Callable[[Any], None] | None = None,
        background: bool = False,
        urgent: bool = False,
    ) -> None:
        """Run `work` on a worker; `on_done(result)` runs on the UI thread.

        With a `key`, only the newest request of that key gets its answer.
        `on_dropped(result)` receives an answer nobody takes (overtaken by a newer
        request, or the runner closed), for work whose result holds something
        to release, such as an opened vault. `background` runs it on the
        `background` pool; `urgent` puts it ahead of the queued requests (what
        the person is waiting for, such as the search they typed, goes before
        the panes refreshing around it).
        """
        if self._closed:
            return
        self._serial += 1
        serial = self._serial
        if key is not None:
            self._latest[key] = serial
        self._pending[serial] = _Request(key, on_done, on_failed, on_dropped)
        self.busy_changed.emit(len(self._pending))
        latest = self._latest
        # Read on the worker: a dict lookup is atomic, and a stale read only
        # means the work runs and its answer is dropped as before.
        overtaken = (lambda: latest.get(key) != serial) if key is not None else None
        guard = self.guard
        run = (lambda: guard(work)) if guard is not None else work
        job = _Job(serial, run, self._relay, overtaken, on_dropped, lambda: self._closed)
        (self.background if background else self.pool).start(job, URGENT if urgent else 0)

    def _take(self, serial: int) -> _Request | None:
        request = self._pending.pop(serial, None)
        self.busy_changed.emit(len(self._pending))
        if request is None or self._closed:
            return None
        if request.key is not None and self._latest.get(request.key) != serial:
            return None  # a newer request of the same key is on its way
        return request

    def _succeeded(self, serial: int, result: object) -> None:
        pending = self._pending.get(serial)
        request = self._take(serial)
        if request is not None:
            request.on_done(result)
        elif pending is not None and pending.on_dropped is not None:
            pending.on_dropped(result)

    def _failed(self, serial: int, message: str) -> None:
        request = self._take(serial)
        if request is not None:
            (request.on_failed or self.failed.emit)(message)

    def _crashed(self, serial: int, trace: str) -> None:
        request = self._take(serial)
        if request is not None or not self._closed:
            self.crashed.emit(trace)

    def close(self, timeout_ms: int = 10_000) -> None:
        """Drop every pending answer and wait for the workers to finish."""
        self._closed = True
        self.background.waitForDone(timeout_ms)
        self.pool.waitForDone(timeout_ms)
