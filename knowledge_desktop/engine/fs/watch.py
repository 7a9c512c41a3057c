"""The filesystem watcher: turns raw watchdog events into batches of vault paths.

ARCHITECTURE.md (Data flow §3) gives the watcher one job: normalise, filter
and debounce, then hand vault-relative paths to the one reconcile path. It
never reads a file and never decides what changed — `Reconciler.run` does
that from the paths, so whatever the watcher gets wrong costs at most a
redundant stat, never a wrong projection. Four rules shape the code:

- **Over-report, never under-report.** A move reports both ends; a directory
  event reports the directory (the reconciler expands it); an editor's
  backup-rename (`x.md` → `x.md~`) reports `x.md`, which the reconciler then
  finds rewritten. Temp, lock and backup names are dropped because the
  reconciler would ignore them anyway (`walk.classify_path`), so they must not
  even wake it.
- **Batches, not events.** A save is five to ten events, a `git checkout`
  thousands; reconcile runs once per quiet gap (`debounce_s`), and at least
  every `max_batch_wait_s` during a steady stream so the window keeps up.
- **watchdog's folder bookkeeping is not trusted.** It follows folder renames
  by replaying events and can end up watching the wrong folder, so after any
  folder event the observer is replaced by a fresh one (see `_rearm`).
- **Distrust is loud.** When events may be missing (watch limit, overflow, a
  network filesystem, a dead thread) the watcher stops pretending: it switches
  to periodic full rescans and says why in `state`, so the window can show it.

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
import errno
import logging
import os
import queue
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

from watchdog.events import (
    DirAttribEvent,
    DirModifiedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    FileOpenedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
    FileSystemMovedEvent,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, EventDispatcher

from knowledge_desktop.engine.fs.walk import classify_path, is_hidden

logger = logging.getLogger(__name__)

WatchMode = Literal["watching", "polling", "stopped"]

DEFAULT_DEBOUNCE_S = 0.1
DEFAULT_MAX_BATCH_WAIT_S = 0.5
DEFAULT_POLL_INTERVAL_S = 2.0
DEFAULT_COLLAPSE_THRESHOLD = 500
"""More changed paths than this directly in one folder are sent as the folder.

The reconciler walks a folder in one pass, while each path of a vanished file
costs it a scan of the known paths; 500 keeps a mass delete cheap and is far
above what one person's edits produce."""

HEALTH_CHECK_S = 0.5
"""How often the worker checks that watchdog's threads are still alive."""

EVENT_LAG_S = 1.0
"""The longest an event may take through watchdog's threads: it holds every event
behind an unpaired move (a move into or out of the vault) for 0.5 s. A replaced
observer keeps running this long beside its successor, so that events it had
already read are not dropped, and `wait_idle` waits this long by default."""

POLL_COST_FACTOR = 5.0
"""A rescan that takes t seconds is repeated no sooner than 5·t later, so polling
a huge vault never uses more than about a sixth of a core."""

UNTRUSTED_FILESYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "ncpfs",
        "afs",
        "9p",
        "drvfs",
        "virtiofs",
        "sshfs",
        "davfs",
        "fuse",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
    }
)
"""Filesystems where changes made by another machine (or the host of a VM) do
not produce inotify events. `fuse.*` subtypes are untrusted too; `fuseblk`
(local disks such as NTFS through ntfs-3g) is trusted."""

_TEMP_SUFFIXES = (
    "~",  # vim and emacs backups
    ".tmp",
    ".temp",
    ".swp",  # vim swap files (hidden already, but also written unhidden by some setups)
    ".swx",
    ".swo",
    ".part",
    ".crdownload",
    ".kate-swp",
    "___jb_tmp___",  # JetBrains safe-write
    "___jb_old___",
)


@dataclass(frozen=True, slots=True)
class WatchState:
    """What the watcher is doing, for the status bar."""

    mode: WatchMode
    reason: str = ""
    """Why the watcher polls (empty while watching or stopped): a sentence for the
    status bar, which adds that changes are checked every few seconds."""


# -- pure rules ------------------------------------------------------------------------


def is_temporary(name: str) -> bool:
    """Editor and sync-tool scratch names: written next to a file, never records.

    Hidden names (`.x.md.swp`, `.#x.md`, `.syncthing.x.md.tmp`, `.DS_Store`)
    are already ignored by the vault's walk rules; this covers the unhidden
    ones (`x.md~`, `#x.md#`, `x.md___jb_tmp___`, `~$x.md`, vim's `4913` probe).
    """
    if not name:
        return True
    if name.endswith(_TEMP_SUFFIXES):
        return True
    if len(name) > 1 and name.startswith("#") and name.endswith("#"):
        return True  # emacs auto-save
    if name.startswith("~$"):
        return True  # office-style owner files
    return name.isdigit()  # vim's write probe (4913, 5036, …)


def is_watched_file(rel: str) -> bool:
    """A vault file the reconciler reads: Markdown or an ontology manifest.

    The rule is `walk.classify_path`, so the watcher and the scan can never
    disagree about which files exist; scratch names are dropped on top.
    """
    return classify_path(rel) is not None and not is_temporary(rel.rpartition("/")[2])


def is_watched_folder(rel: str) -> bool:
    """A folder whose appearance, removal or rename the reconciler must hear of."""
    parts = rel.split("/")
    return all(p and not is_hidden(p) for p in parts) and not is_temporary(parts[-1])


def vault_relative(prefix: str, raw: bytes | str) -> str | None:
    """`raw` as a `/`-separated path relative to the vault; None when outside it.

    `prefix` is the watched root with a trailing separator. The root itself is
    None too: the reconciler has nothing to do for "" and a vanished root is
    noticed by the health check instead.
    """
    path = os.fsdecode(raw)
    if not path.startswith(prefix):
        return None
    rel = path[len(prefix) :]
    if os.sep != "/":
        rel = rel.replace(os.sep, "/")
    rel = rel.strip("/")
    return rel or None


_DROPPED_EVENTS = (
    FileOpenedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    DirModifiedEvent,
    DirAttribEvent,
)


def event_paths(prefix: str, event: FileSystemEvent) -> set[str]:
    """The vault paths one watchdog event asks the reconciler to look at.

    Open/close events carry no change of their own (a write also produces a
    modified event). A folder's "modified" only means an entry inside it
    changed, which arrives as its own event. Synthetic events (watchdog's
    expansion of a folder move into one event per file) are dropped: the
    folder paths already make the reconciler walk both sides.
    """
    if isinstance(event, _DROPPED_EVENTS) or event.is_synthetic:
        return set()
    raws: list[bytes | str] = [event.src_path]
    if isinstance(event, FileSystemMovedEvent):
        raws.append(event.dest_path)
    wanted = is_watched_folder if event.is_directory else is_watched_file
    out: set[str] = set()
    for raw in raws:
        if not raw:
            continue
        rel = vault_relative(prefix, raw)
        if rel is not None and wanted(rel):
            out.add(rel)
    return out


def collapse(paths: Iterable[str], threshold: int = DEFAULT_COLLAPSE_THRESHOLD) -> set[str]:
    """Replace more than `threshold` paths directly inside one folder by the folder.

    Vault-root files are never collapsed: the reconciler treats "" as nothing.
    """
    by_folder: defaultdict[str, list[str]] = defaultdict(list)
    for path in paths:
        by_folder[path.rpartition("/")[0]].append(path)
    out: set[str] = set()
    for folder, items in by_folder.items():
        if folder and len(items) > threshold:
            out.add(folder)
        else:
            out.update(items)
    return out


_MOUNT_ESCAPE = re.compile(r"\\([0-7]{3})")


def filesystem_type(path: Path, mounts_text: str) -> str | None:
    """The type of the filesystem holding `path`, from /proc/self/mounts text.

    The longest mount point that contains the path wins (later lines win ties,
    as a later mount hides an earlier one).
    """
    target = os.path.realpath(path)
    best: tuple[int, str] | None = None
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = _MOUNT_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), fields[1])
        inside = point in ("/", target) or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= best[0]):
            best = (len(point), fields[2])
    return None if best is None else best[1]


def untrusted_filesystem(fs_type: str | None) -> bool:
    if fs_type is None:
        return False
    return fs_type in UNTRUSTED_FILESYSTEMS or fs_type.startswith("fuse.")


def count_folders(root: Path, stop_after: int) -> int:
    """Folders under `root` (itself included, hidden ones too, links not followed),
    counting no further than `stop_after` + 1: watchdog puts one inotify watch on each."""
    count = 0
    stack = [str(root)]
    while stack and count <= stop_after:
        folder = stack.pop()
        count += 1
        try:
            with os.scandir(folder) as entries:
                stack.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
    return count


def describe_os_error(exc: OSError) -> str:
    """A status-bar sentence for a failure to set up inotify."""
    if exc.errno == errno.ENOSPC:
        return "the system's limit of watched folders is reached (raise fs.inotify.max_user_watches)"
    if exc.errno in (errno.EMFILE, errno.ENFILE):
        return "the system's limit of file watchers is reached (raise fs.inotify.max_user_instances)"
    return f"the folder cannot be watched ({exc.strerror or exc})"


# -- the watcher ------------------------------------------------------------------------


class _Forwarder(FileSystemEventHandler):
    """Hands every watchdog event to the watcher, on watchdog's dispatch thread."""

    def __init__(self, sink: Callable[[FileSystemEvent], None]) -> None:
        super().__init__()
        self._sink = sink

    def dispatch(self, event: FileSystemEvent) -> None:
        self._sink(event)


class _OverflowSpy(logging.Handler):
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


WATCHDOG_LOGGER = "watchdog.observers"
VANISHED = "the vault folder was moved or deleted"

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
        self._retiring: list[tuple[BaseObserver, float]] = []
        """Replaced observers and when to stop them (see EVENT_LAG_S)."""
        self._spy: _OverflowSpy | None = None
        self._thread: threading.Thread | None = None

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
            observer, failure = self._new_observer()
            reason = failure or None
            if observer is not None:
                spy = _OverflowSpy(self._overflowed)
                logging.getLogger(WATCHDOG_LOGGER).addHandler(spy)
                with self._cond:
                    self._observer, self._spy = observer, spy
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
        try:
            mounts = (self._proc_root / "self" / "mounts").read_text("utf-8", errors="replace")
        except OSError:
            mounts = ""
        fs_type = filesystem_type(self.root, mounts)
        if untrusted_filesystem(fs_type):
            return f"the vault is on a {fs_type} filesystem, which does not report changes made elsewhere"
        limit = _read_int(self._proc_root / "sys" / "fs" / "inotify" / "max_user_watches")
        # watchdog silently skips folders it cannot watch (only the root's failure is
        # raised), so a vault with more folders than the limit is refused up front.
        if limit is not None and count_folders(self.root, limit) > limit:
            return (
                f"the vault has more folders than the system lets one watch ({limit}; raise "
                "fs.inotify.max_user_watches)"
            )
        return None

    def _new_observer(self) -> tuple[BaseObserver | None, str]:
        """A started watchdog observer on the vault, or None and the reason to poll."""
        try:
            observer = self._observer_factory()
        except OSError as exc:
            return None, describe_os_error(exc)
        try:
            observer.schedule(
                _Forwarder(self._on_event), str(self.root), recursive=True, follow_symlink=False
            )
            observer.start()
        except OSError as exc:
            _shut_down(observer)
            return None, describe_os_error(exc) if self.root.is_dir() else VANISHED
        return observer, ""

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
        observer, reason = self._new_observer()
        if observer is None:
            self._distrust(reason)
            return
        with self._cond:
            if self._stopping or self._state.mode != "watching":
                unused: BaseObserver | None = observer  # stop() or a fallback got here first
            else:
                unused, old, self._observer = None, self._observer, observer
                if old is not None:
                    self._retiring.append((old, time.monotonic() + EVENT_LAG_S))
        if unused is not None:
            _shut_down(unused)

    def _retire_observer(self) -> None:
        """Stop all of watchdog's threads; whichever thread gets here first does it."""
        with self._cond:
            observers = [o for o, _ in self._retiring]
            if self._observer is not None:
                observers.append(self._observer)
            self._observer, self._retiring = None, []
            spy, self._spy = self._spy, None
        if spy is not None:
            logging.getLogger(WATCHDOG_LOGGER).removeHandler(spy)
        for observer in observers:
            _shut_down(observer)

    # -- event side (watchdog's threads) ---------------------------------------------
    def _on_event(self, event: FileSystemEvent) -> None:
        try:
            paths = event_paths(self._prefix, event)
        except Exception as exc:  # a bug here must not kill watchdog's dispatcher
            logger.exception("cannot interpret %r", event)
            self._distrust(f"an event could not be read ({exc})")
            return
        if not paths:
            return
        now = time.monotonic()
        with self._cond:
            if self._state.mode != "watching" or self._stopping:
                return
            if event.is_directory:  # folders' modified events never get here
                self._rearm_due = True
            self._pending |= paths
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
                    if now >= flush_at:
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
            due = [o for o, at in self._retiring if at <= now]
            self._retiring = [(o, at) for o, at in self._retiring if at > now]
        for old in due:
            _shut_down(old)
        if observer is None:
            return
        threads: list[threading.Thread] = [observer, *tuple(observer.emitters)]
        # watchdog's inotify observer reads the kernel on a thread of its own that is
        # not one of its emitters; if it dies the emitters just wait forever.
        reader = getattr(observer, "_inotify_fd", None)
        if isinstance(reader, threading.Thread):
            threads.append(reader)
        if all(t.is_alive() for t in threads):
            return
        if not self.root.is_dir():
            self._distrust(VANISHED)
        else:
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


def _shut_down(observer: BaseObserver) -> None:
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


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text("ascii").strip())
    except (OSError, ValueError):
        return None
