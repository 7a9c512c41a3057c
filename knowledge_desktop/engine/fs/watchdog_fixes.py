"""Where the watcher works around watchdog's inotify observer.

Written against watchdog 7.1 (pyproject.toml pins the range): its
observer leaves a few gaps the watcher must cover itself, and each fix is
here so that a watchdog upgrade has one module to re-read.

- A queue overflow is only logged (`OverflowSpy` listens for that record,
  which watchdog 7.1 is the first to write).
- The kernel is read on a thread that is neither the observer nor one of
  its emitters (`observer_threads` finds it, so the health check can tell
  that it died).
- Stopping can raise half-way and leave threads behind (`shut_down`).

The other workaround, replacing the observer after folder events because
watchdog's folder bookkeeping goes wrong, is part of the watcher's state
(`VaultWatcher._rearm`). watchdog's internals are looked up defensively:
with another version a fix does nothing rather than fail.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable

from watchdog.observers.api import BaseObserver, EventDispatcher

logger = logging.getLogger(__name__)

WATCHDOG_LOGGER = "watchdog.observers"


class OverflowSpy(logging.Handler):
    """Hears watchdog say that the kernel dropped events.

    watchdog handles an inotify queue overflow internally (it re-adds its
    watches) and only logs it; the log record is the one public sign that
    events were lost, so the watcher listens for it.
    """

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self._on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self._on_overflow()


def observer_threads(observer: BaseObserver) -> list[threading.Thread]:
    """Every thread an observer needs alive: itself, its emitters, and the inotify
    observer's reader of the kernel, a thread of its own that is not one of its
    emitters (if it dies, the emitters just wait forever)."""
    threads: list[threading.Thread] = [observer, *tuple(observer.emitters)]
    reader = getattr(observer, "_inotify_fd", None)
    if isinstance(reader, threading.Thread):
        threads.append(reader)
    return threads


def shut_down(observer: BaseObserver) -> None:
    """Stop an observer and join its threads, whether or not it ever started
    (watchdog's inotify observer starts a reader thread in its constructor)."""
    _mend_watch_maps(observer)
    try:
        observer.stop()
    except Exception:
        # A half-stopped observer: at least end its dispatcher, which waits on this queue.
        logger.warning("watchdog did not stop cleanly", exc_info=True)
        with contextlib.suppress(queue.Full):
            observer.event_queue.put_nowait(EventDispatcher.stop_event)
    if observer.ident is not None:
        observer.join(timeout=5)


def _mend_watch_maps(observer: BaseObserver) -> None:
    """Make watchdog 7's inotify index consistent again before it is stopped.

    When a watched folder is moved out of the vault its watch stays registered
    under the old name, and a new folder of that name gets a second watch
    under the same name; watchdog's path → watch index then holds only one of
    them, and removing the watches at stop raises KeyError half-way, leaving
    three threads running (move `a/` out, `mkdir a`, rename it, stop).
    Re-indexing every watch under a distinct key lets watchdog's own removal
    run to the end; the keys are only used for that removal. Looked up
    defensively: with other watchdog versions, whose internals differ, this
    does nothing.
    """
    for emitter in tuple(observer.emitters):
        group = getattr(emitter, "_inotify", None)
        by_watch = getattr(group, "_active_callbacks_by_watch", None)
        by_path = getattr(group, "_active_callbacks_by_path", None)
        lock = getattr(group, "_lock", None)
        if not (isinstance(by_watch, dict) and isinstance(by_path, dict) and lock is not None):
            continue
        with lock:
            by_path.clear()
            for wd, path in list(by_watch.items()):
                key = path
                if key in by_path and isinstance(key, bytes):
                    key = by_watch[wd] = path + b"\0stale-watch-" + str(wd).encode()
                by_path[key] = wd
