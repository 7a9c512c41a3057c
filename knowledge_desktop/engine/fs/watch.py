"""The filesystem watcher: turns raw watchdog events into batches of vault paths.

ARCHITECTURE.md (Data flow §3) gives the watcher one job: normalise, filter
and debounce, then hand vault-relative paths to the one reconcile path. It
never reads a file and never decides what changed — `Reconciler.run` does
that from the paths, so whatever the watcher gets wrong costs at most a
redundant stat, never a wrong projection. Four rules shape the code:

- **Over-report, never under-report.** Which paths an event is about, and
  which it drops, are pure rules (`fs/events.py`).
- **Batches, not events.** A save is five to ten events, a `git checkout`
  thousands; reconcile runs once per quiet gap (`debounce_s`), and at least
  every `max_batch_wait_s` during a steady stream so the window keeps up.
- **watchdog's folder bookkeeping is not trusted.** It follows folder renames
  by replaying events and can end up watching the wrong folder, so after any
  folder event the observer is replaced by a fresh one (see `_rearm`); the
  other gaps in watchdog are covered in `fs/watchdog_fixes.py`.
- **Distrust is loud.** When events may be missing (watch limit, overflow, a
  network filesystem, a dead thread) the watcher stops pretending: it switches
  to periodic full rescans and says why in `state`, so the window can show it
  (`fs/mounts.py`, `fs/inotify_limits.py` tell it before it starts).

Wiring (the caller's job, since `fs/` must not import `vault.py`)::

    watcher = VaultWatcher(
        vault.root,
        on_paths=lambda paths: vault.reconcile(paths, source="watcher"),
        on_rescan=lambda: vault.reconcile(source="watcher"),
        on_state=show_in_status_bar,
    )
    watcher.start()        # watches are in place when this returns
    vault.reconcile()      # then scan: nothing changed meanwhile is missed

Every callback runs on the watcher's own thread, one at a time. A callback
should not block for long: events keep arriving meanwhile and are coalesced
into the next batch (never lost), but that batch waits for the callback.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from knowledge_desktop.engine.fs.events import (
    DEFAULT_COLLAPSE_THRESHOLD,
    Notice,
    collapse,
    event_paths,
    noticed_paths,
)
from knowledge_desktop.engine.fs.inotify_limits import count_folders, describe_os_error, watch_limit
from knowledge_desktop.engine.fs.mounts import untrusted_filesystem, vault_filesystem
from knowledge_desktop.engine.fs.watchdog_fixes import (
    WATCHDOG_LOGGER,
    OverflowSpy,
    observer_threads,
    shut_down,
)

logger = logging.getLogger(__name__)

WatchMode = Literal["watching", "polling", "stopped"]

FlushReason = Literal["quiet", "max-wait", "sync"]
DEFAULT_DEBOUNCE_S = 0.1
DEFAULT_MAX_BATCH_WAIT_S = 0.5
DEFAULT_POLL_INTERVAL_S = 2.0

HEALTH_CHECK_S = 0.5
"""How often the worker checks that watchdog's threads are still alive."""

EVENT_LAG_S = 1.0
"""The longest an event may take through watchdog's threads: it holds every event
behind an unpaired move (a move into or out of the vault) for 0.5 s. A replaced
observer keeps running this long beside its successor, so that events it had
already read are not dropped, and `wait_idle` waits this long by default."""

SYNC_TIMEOUT_S = 3.0
"""How long `sync` waits for its marker to come through before it gives up (the caller
then walks the vault): far longer than an event takes, even on a loaded machine."""
SYNC_PREFIX = "live-sync-"
"""The name of a sync marker file, followed by the process id and a counter."""

POLL_COST_FACTOR = 5.0
"""A rescan that takes t seconds is repeated no sooner than 5·t later, so polling
a huge vault never uses more than about a sixth of a core."""


@dataclass(frozen=True, slots=True)
class WatchState:
    """What the watcher is doing, for the status bar."""

    mode: WatchMode
    reason: str = ""
    """Why the watcher polls (empty while watching or stopped): a sentence for the
    status bar, which adds that changes are checked every few seconds."""


class _Forwarder(FileSystemEventHandler):
    """Hands every watchdog event to the watcher, on watchdog's dispatch thread, with the
    number of the observer that read it (see `VaultWatcher.sync`)."""

    def __init__(self, sink: Callable[[FileSystemEvent, int], None], tag: int) -> None:
        super().__init__()
        self._sink = sink
        self._tag = tag

    def dispatch(self, event: FileSystemEvent) -> None:
        self._sink(event, self._tag)


VANISHED = "the vault folder was moved or deleted (or unmounted)"


def _has_entries(folder: Path) -> bool:
    """Whether `folder` is there and holds something (an unmounted vault is an empty folder)."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is not None
    except OSError:
        return False


ObserverFactory = Callable[[], BaseObserver]


class VaultWatcher:
    """Watches a vault folder and reports changed vault paths in batches.

    `on_paths(paths)` gets vault-relative POSIX paths of files and folders
    that may have changed, appeared or vanished. `on_rescan()` asks for a full
    reconcile: it is called instead of `on_paths` while the watcher cannot be
    trusted (state "polling"), first at once and then every `poll_interval_s`.
    `on_state(state)` hears every change of `state`; `on_error(exc)` hears
    exceptions raised by the other callbacks (default: logged), which never
    stop the watcher.

    `sync_dir` is a folder inside the vault (the vault's `.knowledge/`) where `sync`
    may write its marker files; without it `sync` cannot vouch for anything.

    `notice` reports, in the same batches, paths the walk rules drop that the caller still
    needs to hear of (the live reader's collection markers and folders; `fs/events.py`):
    `on_paths` may then get paths that are no vault files.

    `observer_factory` and `proc_root` exist so tests can inject a failing
    observer or a fake /proc (mounts and the inotify watch limit) instead of
    needing a real network filesystem or an exhausted kernel limit.
    """

    THREAD_NAME = "knowledge-watch"

    def __init__(
        self,
        root: Path,
        on_paths: Callable[[set[str]], None],
        on_rescan: Callable[[], None],
        on_state: Callable[[WatchState], None] | None = None,
        *,
        on_error: Callable[[BaseException], None] | None = None,
        debounce_s: float = DEFAULT_DEBOUNCE_S,
        max_batch_wait_s: float = DEFAULT_MAX_BATCH_WAIT_S,
        poll_interval_s: float = DEFAULT_POLL_INTERVAL_S,
        collapse_threshold: int = DEFAULT_COLLAPSE_THRESHOLD,
        force_polling: bool = False,
        sync_dir: Path | None = None,
        notice: Notice | None = None,
        observer_factory: ObserverFactory | None = None,
        proc_root: Path = Path("/proc"),
    ) -> None:
        if debounce_s < 0 or max_batch_wait_s < debounce_s or poll_interval_s <= 0:
            raise ValueError("need 0 <= debounce_s <= max_batch_wait_s and poll_interval_s > 0")
        self.root = Path(os.path.abspath(root))
        self._prefix = str(self.root).rstrip(os.sep) + os.sep
        self._on_paths = on_paths
        self._on_rescan = on_rescan
        self._on_state = on_state
        self._on_error = on_error
        self.debounce_s = debounce_s
        self.max_batch_wait_s = max_batch_wait_s
        self.poll_interval_s = poll_interval_s
        self.collapse_threshold = collapse_threshold
        self._force_polling = force_polling
        self._observer_factory: ObserverFactory = observer_factory or Observer
        self._proc_root = proc_root
        self._sync_dir = Path(os.path.abspath(sync_dir)) if sync_dir is not None else None
        self._sync_prefix = str(self._sync_dir / SYNC_PREFIX) if self._sync_dir is not None else None
        self._sync_count = itertools.count(1)
        self._notice = notice
        self._awaited: dict[str, set[int]] = {}
        """Sync markers being waited for, and the observers (by tag) that have read each."""
        self._flushing = 0
        """How many `sync` calls wait: deliver what is pending without the quiet gap."""
        self._tags = itertools.count(1)
        self._observer_tag = 0

        self._cond = threading.Condition()
        self._state = WatchState("stopped")
        self._state_reports: list[WatchState] = []
        self._pending: set[str] = set()
        self._first_event_at: float | None = None
        self._last_event_at = 0.0
        self._next_poll_at = 0.0
        self._next_health_at = 0.0
        self._rearm_due = False
        """A folder appeared, vanished or moved since the last batch: see `_rearm`."""
        self._busy = False
        self._started = False
        self._stopping = False
        self._observer: BaseObserver | None = None
        self._retiring: list[tuple[BaseObserver, float, int]] = []
        """Replaced observers, when to stop them (see EVENT_LAG_S) and their tags."""
        self._spy: OverflowSpy | None = None
        self._thread: threading.Thread | None = None
        self._flush_reasons: deque[FlushReason] = deque(maxlen=64)

    # -- public ----------------------------------------------------------------
    @property
    def state(self) -> WatchState:
        with self._cond:
            return self._state

    def start(self) -> None:
        """Set up watching (or polling) and start the worker thread.

        Watches are in place when this returns, so a scan started afterwards
        cannot miss a change. Starting twice is an error; a stopped watcher
        cannot be restarted (make a new one).
        """
        with self._cond:
            if self._started:
                raise RuntimeError("a VaultWatcher starts only once")
            self._started = True
        reason = self._distrust_reason()
        if reason is None:
            observer, tag, failure = self._new_observer()
            reason = failure or None
            if observer is not None:
                spy = OverflowSpy(self._overflowed)
                logging.getLogger(WATCHDOG_LOGGER).addHandler(spy)
                with self._cond:
                    self._observer, self._observer_tag, self._spy = observer, tag, spy
        with self._cond:
            if reason is None:
                self._set_state(WatchState("watching"))
                self._next_health_at = time.monotonic() + HEALTH_CHECK_S
            else:
                # The caller scans after start(); the first poll can wait a full interval.
                self._enter_polling(reason, rescan_now=False)
            self._thread = threading.Thread(target=self._run, name=self.THREAD_NAME, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop watching and join every thread the watcher started. Idempotent.

        Paths not yet delivered are dropped: the caller is closing the vault,
        and the next open scans anyway. Safe to call from inside a callback
        (the worker then ends when the callback returns).
        """
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        self._retire_observer()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with self._cond:
            if self._state.mode != "stopped":
                self._state = WatchState("stopped")

    def flush_reasons(self) -> list[FlushReason]:
        """Why each recent batch was handed out, oldest first: "quiet" (no event for
        `debounce_s`) or "max-wait" (`max_batch_wait_s` after its first event, during a
        steady stream). Tests read it instead of timing the batches."""
        with self._cond:
            return list(self._flush_reasons)

    def pending(self) -> set[str]:
        """The paths heard of and not yet handed out (a copy): a readiness signal for
        tests that need events queued before they let a blocked callback go on."""
        with self._cond:
            return set(self._pending)

    def wait_idle(self, timeout: float = 10.0, quiet_s: float | None = None) -> bool:
        """Block until no event arrived for `quiet_s` (default EVENT_LAG_S), nothing
        is pending and no callback runs; False on timeout. For tests and headless
        callers that want "everything written so far is reconciled"."""
        quiet = EVENT_LAG_S if quiet_s is None else quiet_s
        called = time.monotonic()
        deadline = called + timeout
        with self._cond:
            while True:
                now = time.monotonic()
                settled = not self._pending and not self._busy and not self._state_reports
                # Quiet is counted from the call too: events of a write that just
                # returned may still be on their way through watchdog's threads.
                if settled and now - max(self._last_event_at, called) >= quiet:
                    return True
                if now >= deadline or self._thread is None or not self._thread.is_alive():
                    return settled
                self._cond.wait(min(deadline - now, 0.05))

    def sync(self, timeout: float = SYNC_TIMEOUT_S) -> str | None:
        """Hand the callbacks every change made in the vault before this call and return None
        once they have handled it; or say why the watcher cannot vouch for that, and the
        caller walks the vault instead (`engine/live_vault.py`).

        An event reaches the watcher a while after the write that caused it (watchdog reads
        it on its own threads and holds a move up to half a second to pair it), so an empty
        pending set proves nothing. Instead a marker file is created in `sync_dir`: the
        kernel queues its event behind those of every earlier write, and watchdog passes
        events on in that order, so once each observer reading the vault has passed the
        marker on, every earlier change is pending or delivered. What is pending is then
        delivered at once, without waiting for the quiet gap, and this returns when the
        callback is done with it. Safe to call from several threads at once.
        """
        if self._sync_prefix is None:
            return "the vault's state folder is not inside it, so the watcher cannot be synchronised"
        marker = f"{self._sync_prefix}{os.getpid()}-{next(self._sync_count)}"
        deadline = time.monotonic() + timeout
        with self._cond:
            if self._state.mode != "watching" or self._stopping:
                return self._state.reason or "the vault is not being watched"
            needed = {self._observer_tag, *(tag for _, _, tag in self._retiring)}
            self._awaited[marker] = set()
        try:
            try:
                os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except OSError as exc:
                return f"the watcher's sync marker cannot be written ({exc.strerror or exc})"
            with self._cond:
                while True:
                    if self._state.mode != "watching" or self._stopping:
                        return self._state.reason or "the vault is no longer watched"
                    alive = {self._observer_tag, *(tag for _, _, tag in self._retiring)}
                    if needed & alive <= self._awaited[marker]:
                        break
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return f"the watcher did not report a change within {timeout:g} s"
                    self._cond.wait(left)
                self._flushing += 1
                try:
                    self._cond.notify_all()
                    # No deadline here: the callback is reconciling, and a walk would wait
                    # for the vault it holds anyway.
                    while self._pending or self._busy or self._state_reports:
                        if self._stopping or self._thread is None or not self._thread.is_alive():
                            return "the watcher stopped"
                        if self._state.mode != "watching":
                            return self._state.reason
                        self._cond.wait(HEALTH_CHECK_S)
                finally:
                    self._flushing -= 1
            return None
        finally:
            with self._cond:
                self._awaited.pop(marker, None)
            with contextlib.suppress(OSError):
                os.unlink(marker)

    def __enter__(self) -> VaultWatcher:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- setting up ------------------------------------------------------------
    def _distrust_reason(self) -> str | None:
        """Why events cannot be relied on before even trying, or None."""
        if self._force_polling:
            return "polling was requested"
        fs_type = vault_filesystem(self.root, self._proc_root)
        if untrusted_filesystem(fs_type):
            return f"the vault is on a {fs_type} filesystem, which does not report changes made elsewhere"
        limit = watch_limit(self._proc_root)
        # watchdog silently skips folders it cannot watch (only the root's failure is
        # raised), so a vault with more folders than the limit is refused up front.
        if limit is not None and count_folders(self.root, limit) > limit:
            return (
                f"the vault has more folders than the system lets one watch ({limit}; raise "
                "fs.inotify.max_user_watches)"
            )
        return None

    def _new_observer(self) -> tuple[BaseObserver | None, int, str]:
        """A started watchdog observer on the vault and its tag, or None and the reason to poll."""
        tag = next(self._tags)
        try:
            observer = self._observer_factory()
        except OSError as exc:
            return None, tag, describe_os_error(exc)
        try:
            observer.schedule(
                _Forwarder(self._on_event, tag), str(self.root), recursive=True, follow_symlink=False
            )
            observer.start()
        except OSError as exc:
            shut_down(observer)
            return None, tag, describe_os_error(exc) if self.root.is_dir() else VANISHED
        return observer, tag, ""

    def _rearm(self) -> None:
        """Replace the observer by a fresh one whose watches are read from the disk.

        watchdog tracks which folder each inotify watch is on by replaying
        folder events, and that replay goes wrong: a folder moved out of the
        vault keeps its watch under its old name, so a new folder of that name
        is later renamed as if it were the old one and stays unwatched; fast
        `mkdir x; mv x y; mkdir x` sequences mislabel watches the same way.
        The true name of every such folder is among the folder paths of the
        batch, so after any folder event the watcher starts a new observer
        and only then delivers the batch — the reconciler's walk of those
        folders catches whatever the old watches missed, and the new watches
        see everything after. The old observer runs on for EVENT_LAG_S so
        that events it had already read are not lost.
        """
        observer, tag, reason = self._new_observer()
        if observer is None:
            self._distrust(reason)
            return
        with self._cond:
            if self._stopping or self._state.mode != "watching":
                unused: BaseObserver | None = observer  # stop() or a fallback got here first
            else:
                unused, old, old_tag = None, self._observer, self._observer_tag
                self._observer, self._observer_tag = observer, tag
                if old is not None:
                    self._retiring.append((old, time.monotonic() + EVENT_LAG_S, old_tag))
                self._cond.notify_all()
        if unused is not None:
            shut_down(unused)

    def _retire_observer(self) -> None:
        """Stop all of watchdog's threads; whichever thread gets here first does it."""
        with self._cond:
            observers = [o for o, _, _ in self._retiring]
            if self._observer is not None:
                observers.append(self._observer)
            self._observer, self._retiring = None, []
            spy, self._spy = self._spy, None
        if spy is not None:
            logging.getLogger(WATCHDOG_LOGGER).removeHandler(spy)
        for observer in observers:
            shut_down(observer)

    # -- event side (watchdog's threads) ---------------------------------------------
    def _on_event(self, event: FileSystemEvent, tag: int = 0) -> None:
        if self._sync_prefix is not None:
            source = event.src_path
            if isinstance(source, str) and source.startswith(self._sync_prefix):
                with self._cond:
                    readers = self._awaited.get(source)
                    if readers is not None:
                        readers.add(tag)
                        self._cond.notify_all()
                return
        try:
            paths = event_paths(self._prefix, event)
            noticed = set() if self._notice is None else noticed_paths(self._prefix, event, self._notice)
        except Exception as exc:  # a bug here must not kill watchdog's dispatcher
            logger.exception("cannot interpret %r", event)
            self._distrust(f"an event could not be read ({exc})")
            return
        if not paths and not noticed:
            return
        now = time.monotonic()
        with self._cond:
            if self._state.mode != "watching" or self._stopping:
                return
            if event.is_directory and paths:  # folders' modified events never get here
                self._rearm_due = True
            self._pending |= paths | noticed
            if self._first_event_at is None:
                self._first_event_at = now
            self._last_event_at = now
            self._cond.notify_all()

    def _overflowed(self) -> None:
        self._distrust("the system dropped file events (queue overflow)")

    def _distrust(self, reason: str) -> None:
        """Switch to polling from any thread; the worker stops watchdog (it may be
        watchdog's own thread calling, which cannot join itself)."""
        with self._cond:
            if self._state.mode == "watching" and not self._stopping:
                self._enter_polling(reason, rescan_now=True)
                self._cond.notify_all()

    # -- worker side ---------------------------------------------------------------
    def _set_state(self, state: WatchState) -> None:
        """Record a state change for the worker to report; caller holds the lock."""
        self._state = state
        self._state_reports.append(state)

    def _enter_polling(self, reason: str, *, rescan_now: bool) -> None:
        """Caller holds the lock. Pending paths are dropped: the rescan covers them."""
        self._set_state(WatchState("polling", reason))
        self._pending.clear()
        self._rearm_due = False
        self._first_event_at = None
        now = time.monotonic()
        self._next_poll_at = now if rescan_now else now + self.poll_interval_s

    def _run(self) -> None:
        while True:
            action, batch, reports = self._next_action()
            for state in reports:
                if self._on_state is not None:
                    self._call(self._on_state, state)
            if action == "stop":
                self._retire_observer()
                with self._cond:
                    self._state = WatchState("stopped")
                if self._on_state is not None:
                    self._call(self._on_state, WatchState("stopped"))
                with self._cond:
                    self._cond.notify_all()
                return
            if action == "retire":
                self._retire_observer()
            elif action == "health":
                self._check_health()
            elif action == "flush":
                self._call(self._on_paths, collapse(batch, self.collapse_threshold))
            elif action == "rearm+flush":
                self._rearm()
                self._call(self._on_paths, collapse(batch, self.collapse_threshold))
            elif action == "rescan":
                started = time.monotonic()
                self._call(self._on_rescan)
                cost = time.monotonic() - started
                with self._cond:
                    if self._state.mode == "polling":
                        gap = max(self.poll_interval_s, POLL_COST_FACTOR * cost)
                        self._next_poll_at = time.monotonic() + gap
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _next_action(self) -> tuple[str, set[str], list[WatchState]]:
        """Wait for the next thing to do. Marks the watcher busy for flush and rescan."""
        with self._cond:
            while True:
                reports, self._state_reports = self._state_reports, []
                if self._stopping:
                    return "stop", set(), reports
                if reports:
                    self._busy = True
                    return "reports", set(), reports
                now = time.monotonic()
                mode = self._state.mode
                if mode == "polling":
                    if self._observer is not None or self._retiring:
                        return "retire", set(), []
                    if now >= self._next_poll_at:
                        self._busy = True
                        return "rescan", set(), []
                    self._cond.wait(self._next_poll_at - now)
                    continue
                due = self._next_health_at
                if self._pending and self._first_event_at is not None:
                    flush_at = min(
                        self._last_event_at + self.debounce_s,
                        self._first_event_at + self.max_batch_wait_s,
                    )
                    if now >= flush_at or self._flushing:
                        quiet = self._last_event_at + self.debounce_s
                        reason: FlushReason = "quiet" if quiet <= flush_at else "max-wait"
                        self._flush_reasons.append("sync" if self._flushing and now < flush_at else reason)
                        batch, self._pending = self._pending, set()
                        self._first_event_at = None
                        self._busy = True
                        rearm, self._rearm_due = self._rearm_due, False
                        return ("rearm+flush" if rearm else "flush"), batch, []
                    due = min(due, flush_at)
                if now >= self._next_health_at:
                    self._next_health_at = now + HEALTH_CHECK_S
                    return "health", set(), []
                self._cond.wait(due - now)

    def _check_health(self) -> None:
        now = time.monotonic()
        with self._cond:
            observer = self._observer
            due = [o for o, at, _ in self._retiring if at <= now]
            self._retiring = [r for r in self._retiring if r[1] > now]
            if due:
                self._cond.notify_all()  # a sync no longer waits for their reading
        for old in due:
            shut_down(old)
        if observer is None:
            return
        if not _has_entries(self.root):
            # Deleted, moved away (inotify follows the folder to its new name, so the
            # threads live on) or unmounted (an empty mount point is left): events would
            # never tell.
            self._distrust(VANISHED)
        elif not all(t.is_alive() for t in observer_threads(observer)):
            self._distrust("the file watcher stopped unexpectedly")

    def _call(self, fn: Callable[..., object], *args: object) -> None:
        """Run a caller's callback; its exceptions go to on_error and never end the worker."""
        try:
            fn(*args)
        except Exception as exc:
            if self._on_error is None:
                logger.exception("watcher callback failed")
                return
            try:
                self._on_error(exc)
            except Exception:
                logger.exception("watcher error callback failed")
