"""The filesystem watcher: editors' save patterns become one change of the file,
moves report both ends, bursts become few batches, ignored names never wake
the reconciler, and an untrustworthy watcher falls back to polling. The last
test drives a real Vault through a thousand random file operations and checks
the projections against a fresh scan. (ARCHITECTURE.md: Data flow §3.)"""

from __future__ import annotations

import errno
import logging
import os
import random
import shutil
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from watchdog.observers.api import BaseObserver
from watchdog.observers.inotify import InotifyObserver
from watchdog.utils import BaseThread

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.fs.events import collapse, event_paths, is_watched_file
from knowledge_desktop.engine.fs.mounts import filesystem_type, untrusted_filesystem
from knowledge_desktop.engine.fs.watch import VaultWatcher, WatchState
from knowledge_desktop.engine.fs.watchdog_fixes import WATCHDOG_LOGGER
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.plan import WriteRejected
from tests.vaultkit import VaultKit, envelope, fence_of, snapshot

NOTE = "private/notes/x.md"

# watchdog warns (harmlessly) when a folder it already watches is added again, which a
# fast `mkdir -p` can race into; under filterwarnings=error that would kill its thread.
pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")


def watcher_threads() -> list[threading.Thread]:
    return [
        t
        for t in threading.enumerate()
        if t.is_alive() and (t.name == VaultWatcher.THREAD_NAME or isinstance(t, BaseThread))
    ]


class Recorder:
    """Collects what the watcher hands out, from the watcher's thread, and wakes a
    test waiting in `wait_until` whenever something arrives."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.batches: list[set[str]] = []
        self.rescans = 0
        self.states: list[WatchState] = []
        self.errors: list[BaseException] = []
        self.tracebacks: list[str] = []

    def on_paths(self, paths: set[str]) -> None:
        with self.lock:
            self.batches.append(set(paths))
            self.lock.notify_all()

    def on_rescan(self) -> None:
        with self.lock:
            self.rescans += 1
            self.lock.notify_all()

    def on_state(self, state: WatchState) -> None:
        with self.lock:
            self.states.append(state)
            self.lock.notify_all()

    def on_error(self, exc: BaseException) -> None:
        with self.lock:
            self.errors.append(exc)
            self.tracebacks.append("".join(traceback.format_exception(exc)))
            self.lock.notify_all()

    @property
    def paths(self) -> set[str]:
        with self.lock:
            return set().union(*self.batches)

    def clear(self) -> None:
        with self.lock:
            self.batches.clear()

    def wait_until(self, condition: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until `condition()` holds, checking it each time a callback arrives
        (a change of `watcher.state` is reported through `on_state`)."""
        with self.lock:
            return self.lock.wait_for(condition, timeout)


Start = Callable[..., tuple[VaultWatcher, Recorder]]


@pytest.fixture
def vault_dir(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "private" / "notes").mkdir(parents=True)
    (root / ".knowledge").mkdir()
    return root


@pytest.fixture
def start(vault_dir: Path) -> Iterator[Start]:
    """Start a watcher on `vault_dir` (options pass through); every one is stopped
    after the test and must leave no thread behind."""
    started: list[VaultWatcher] = []

    def make(**options: object) -> tuple[VaultWatcher, Recorder]:
        recorder = Recorder()
        watcher = VaultWatcher(
            vault_dir,
            recorder.on_paths,
            recorder.on_rescan,
            recorder.on_state,
            on_error=recorder.on_error,
            **options,  # type: ignore[arg-type]
        )
        started.append(watcher)
        watcher.start()
        return watcher, recorder

    yield make
    for watcher in started:
        watcher.stop()
    assert watcher_threads() == []


def settle(watcher: VaultWatcher) -> None:
    """Wait past watchdog's 0.5 s hold on unpaired moves, then for delivery."""
    assert watcher.wait_idle(timeout=10, quiet_s=0.8)


# -- editors' save patterns -----------------------------------------------------------------


def save_temp_then_rename(folder: Path, name: str, text: str) -> None:
    """VS Code / Obsidian style: a sibling temp file renamed over the original."""
    tmp = folder / f"{name}.tmp"
    tmp.write_text(text)
    os.replace(tmp, folder / name)


def save_hidden_temp(folder: Path, name: str, text: str) -> None:
    """Our own `write_atomic` and many libraries: `.name.<random>.tmp`."""
    tmp = folder / f".{name}.k3j9.tmp"
    tmp.write_text(text)
    os.replace(tmp, folder / name)


def save_jetbrains(folder: Path, name: str, text: str) -> None:
    """JetBrains safe-write: new text to `___jb_tmp___`, old file to `___jb_old___`."""
    tmp = folder / f"{name}___jb_tmp___"
    old = folder / f"{name}___jb_old___"
    tmp.write_text(text)
    os.rename(folder / name, old)
    os.rename(tmp, folder / name)
    old.unlink()


def save_vim(folder: Path, name: str, text: str) -> None:
    """vim: swap files, the `4913` write probe, a `name~` backup by rename."""
    swap = folder / f".{name}.swp"
    swap.write_bytes(b"b0VIM 9.0")
    (folder / f".{name}.swx").write_bytes(b"b0VIM 9.0")
    (folder / f".{name}.swx").unlink()
    probe = folder / "4913"
    probe.write_bytes(b"")
    probe.unlink()
    os.rename(folder / name, folder / f"{name}~")
    (folder / name).write_text(text)
    (folder / f"{name}~").unlink()
    swap.unlink()


def save_emacs(folder: Path, name: str, text: str) -> None:
    """emacs: a `.#name` lock symlink, `#name#` auto-save, a `name~` backup."""
    lock = folder / f".#{name}"
    lock.symlink_to("ada@host.4242:1700000000")
    autosave = folder / f"#{name}#"
    autosave.write_text(text)
    os.rename(folder / name, folder / f"{name}~")
    (folder / name).write_text(text)
    autosave.unlink()
    lock.unlink()


def save_syncthing(folder: Path, name: str, text: str) -> None:
    """Syncthing: `.syncthing.name.tmp` then a rename; plus desktop clutter."""
    tmp = folder / f".syncthing.{name}.tmp"
    tmp.write_text(text)
    os.replace(tmp, folder / name)
    (folder / ".DS_Store").write_bytes(b"\0")
    (folder / f"~${name}").write_text("owner")


@pytest.mark.parametrize(
    "save",
    [
        save_temp_then_rename,
        save_hidden_temp,
        save_jetbrains,
        save_vim,
        save_emacs,
        save_syncthing,
    ],
)
def test_an_editor_save_is_a_change_of_the_saved_file_only(
    vault_dir: Path, start: Start, save: Callable[[Path, str, str], None]
) -> None:
    folder = vault_dir / "private" / "notes"
    (folder / "x.md").write_text("old\n")
    watcher, recorder = start()
    save(folder, "x.md", "new text\n")
    assert recorder.wait_until(lambda: NOTE in recorder.paths)
    settle(watcher)
    assert recorder.paths == {NOTE}
    assert (folder / "x.md").read_text() == "new text\n"


def test_scratch_names_are_not_vault_files() -> None:
    for name in (
        "x.md~",
        "#x.md#",
        ".#x.md",
        "x.md___jb_tmp___",
        "x.md___jb_old___",
        ".x.md.swp",
        "4913",
        ".syncthing.x.md.tmp",
        "x.md.tmp",
        "~$x.md",
        ".DS_Store",
    ):
        assert not is_watched_file(f"private/notes/{name}"), name
    assert is_watched_file("private/notes/x.md")
    assert is_watched_file("private/ontology.yaml")
    assert is_watched_file("private/ontologies/team.yaml")
    assert is_watched_file("loose.md")


# -- plain file operations -----------------------------------------------------------------


def test_create_modify_and_delete_each_report_the_file(vault_dir: Path, start: Start) -> None:
    watcher, recorder = start()
    path = vault_dir / NOTE
    path.write_text("one\n")
    assert recorder.wait_until(lambda: recorder.paths == {NOTE})
    settle(watcher)
    recorder.clear()
    with path.open("a") as handle:
        handle.write("two\n")
    assert recorder.wait_until(lambda: recorder.paths == {NOTE})
    settle(watcher)
    recorder.clear()
    path.unlink()
    assert recorder.wait_until(lambda: recorder.paths == {NOTE})
    settle(watcher)
    assert recorder.paths == {NOTE}


def test_a_renamed_file_reports_both_names(vault_dir: Path, start: Start) -> None:
    (vault_dir / "private" / "people").mkdir()
    (vault_dir / NOTE).write_text("x\n")
    watcher, recorder = start()
    os.rename(vault_dir / NOTE, vault_dir / "private/people/y.md")
    settle(watcher)
    assert recorder.paths == {NOTE, "private/people/y.md"}


def test_a_renamed_folder_reports_both_folders(vault_dir: Path, start: Start) -> None:
    (vault_dir / NOTE).write_text("x\n")
    (vault_dir / "private/notes/deep").mkdir()
    (vault_dir / "private/notes/deep/z.md").write_text("z\n")
    watcher, recorder = start()
    os.rename(vault_dir / "private/notes", vault_dir / "private/archive")
    settle(watcher)
    assert recorder.paths == {"private/notes", "private/archive"}


def test_moves_into_and_out_of_the_vault(vault_dir: Path, tmp_path: Path, start: Start) -> None:
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "in.md").write_text("in\n")
    (outside / "folder" / "a.md").write_text("a\n")
    (vault_dir / NOTE).write_text("x\n")
    (vault_dir / "private/old").mkdir()
    (vault_dir / "private/old/b.md").write_text("b\n")
    watcher, recorder = start()

    os.rename(outside / "in.md", vault_dir / "private/notes/in.md")
    os.rename(outside / "folder", vault_dir / "private/folder")
    settle(watcher)
    assert {"private/notes/in.md", "private/folder"} <= recorder.paths
    assert recorder.paths <= {"private/notes/in.md", "private/folder", "private/folder/a.md"}

    recorder.clear()
    os.rename(vault_dir / NOTE, outside / "x.md")
    os.rename(vault_dir / "private/old", outside / "old")
    settle(watcher)
    assert recorder.paths == {NOTE, "private/old"}


def test_a_new_folder_in_the_place_of_one_moved_out_is_watched(
    vault_dir: Path, tmp_path: Path, start: Start
) -> None:
    """watchdog keeps watching a folder moved out of the vault under its old name
    and then mistakes a new folder of that name for it; the watcher re-arms
    after folder events, so the new folder's files are still seen."""
    (vault_dir / "private/a").mkdir()
    watcher, recorder = start()
    os.rename(vault_dir / "private/a", tmp_path / "a-elsewhere")
    settle(watcher)
    (vault_dir / "private/a").mkdir()
    os.rename(vault_dir / "private/a", vault_dir / "private/b")
    settle(watcher)
    recorder.clear()
    (vault_dir / "private/b/x.md").write_text("x\n")
    (tmp_path / "a-elsewhere/ghost.md").write_text("outside\n")
    settle(watcher)
    assert recorder.paths == {"private/b/x.md"}


def test_ontology_manifests_are_reported_like_records(vault_dir: Path, start: Start) -> None:
    watcher, recorder = start()
    (vault_dir / "private/ontology.yaml").write_text("format: knowledge-ontology-v1\n")
    (vault_dir / "private/ontologies").mkdir()
    (vault_dir / "private/ontologies/team.yaml").write_text("name: team\n")
    (vault_dir / "private/ontologies/readme.txt").write_text("not a manifest\n")
    settle(watcher)
    assert recorder.paths == {
        "private/ontology.yaml",
        "private/ontologies",
        "private/ontologies/team.yaml",
    }


# -- what never wakes the reconciler ---------------------------------------------------------


def test_state_git_and_hidden_folders_never_call_back(vault_dir: Path, start: Start) -> None:
    (vault_dir / ".git").mkdir()
    watcher, recorder = start()
    (vault_dir / ".knowledge/state.sqlite-wal").write_bytes(b"wal")
    (vault_dir / ".knowledge/state.sqlite-wal").write_bytes(b"wal2")
    (vault_dir / ".git/index").write_bytes(b"DIRC")
    (vault_dir / ".git/objects/ab").mkdir(parents=True)
    (vault_dir / ".git/objects/ab/cdef").write_bytes(b"blob")
    (vault_dir / "private/.obsidian").mkdir()
    (vault_dir / "private/.obsidian/workspace.json").write_text("{}")
    (vault_dir / ".trash").mkdir()
    (vault_dir / ".trash/gone.md").write_text("x\n")
    (vault_dir / "private/notes/picture.png").write_bytes(b"\x89PNG")
    (vault_dir / "private/notes/picture.png").unlink()
    (vault_dir / "private/notes/x.md.tmp").write_text("scratch\n")
    settle(watcher)
    assert recorder.batches == []


def test_links_are_not_followed_out_of_the_vault(vault_dir: Path, tmp_path: Path, start: Start) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (vault_dir / "private/linked").symlink_to(elsewhere, target_is_directory=True)
    watcher, recorder = start()
    (elsewhere / "outside.md").write_text("never seen\n")
    (vault_dir / "private/notes/link.md").symlink_to(elsewhere / "outside.md")
    settle(watcher)
    assert recorder.paths == {"private/notes/link.md"}  # the link itself; reconcile decides


# -- batching ---------------------------------------------------------------------------------


def test_a_thousand_file_burst_arrives_in_few_batches(vault_dir: Path, start: Start) -> None:
    watcher, recorder = start()
    expected = set()
    for folder in range(10):
        (vault_dir / f"private/f{folder}").mkdir()
        for i in range(100):
            rel = f"private/f{folder}/n{i}.md"
            (vault_dir / rel).write_text(f"note {i}\n")
            expected.add(rel)
    assert recorder.wait_until(lambda: expected <= recorder.paths, timeout=15)
    settle(watcher)
    assert len(recorder.batches) <= 10, [len(b) for b in recorder.batches]
    assert recorder.paths == expected | {f"private/f{folder}" for folder in range(10)}


def test_a_steady_stream_is_flushed_at_least_every_max_wait(vault_dir: Path, start: Start) -> None:
    """An event every 20 ms, never a 300 ms gap (unless the machine stalls, which ends a
    batch as "quiet"): the watcher records a batch flushed by max-wait while the stream
    runs. Broken max-wait, the stream ends after 400 writes without one and the test fails."""
    watcher, recorder = start(debounce_s=0.3, max_batch_wait_s=0.6)
    for i in range(400):  # at least 8 s of stream
        (vault_dir / f"private/notes/s{i}.md").write_text("s\n")
        recorder.wait_until(lambda: "max-wait" in watcher.flush_reasons(), timeout=0.02)
        if "max-wait" in watcher.flush_reasons():
            break
    assert "max-wait" in watcher.flush_reasons(), watcher.flush_reasons()
    settle(watcher)


def test_many_paths_in_one_folder_collapse_to_the_folder(vault_dir: Path, start: Start) -> None:
    watcher, recorder = start(collapse_threshold=20, max_batch_wait_s=2.0, debounce_s=1.0)
    for i in range(50):
        (vault_dir / f"private/notes/c{i}.md").write_text("c\n")
    (vault_dir / "private/other.md").write_text("o\n")
    settle(watcher)
    assert recorder.paths == {"private/notes", "private/other.md"}


def test_collapse_keeps_vault_root_files_and_small_folders() -> None:
    paths = {f"top{i}.md" for i in range(5)} | {f"p/a/{i}.md" for i in range(5)} | {"p/b/1.md"}
    assert collapse(paths, 3) == {f"top{i}.md" for i in range(5)} | {"p/a", "p/b/1.md"}


def test_events_during_a_callback_are_coalesced_into_the_next_batch(vault_dir: Path, start: Start) -> None:
    gate = threading.Event()
    recorder = Recorder()
    seen = recorder.batches

    def slow(paths: set[str]) -> None:
        recorder.on_paths(paths)
        if len(seen) == 1:
            gate.wait(5)

    watcher = VaultWatcher(vault_dir, slow, lambda: None, debounce_s=0.1, max_batch_wait_s=0.2)
    watcher.start()
    try:
        (vault_dir / "private/notes/first.md").write_text("1\n")
        assert recorder.wait_until(lambda: len(seen) == 1)
        later = {f"private/notes/later{i}.md" for i in range(20)}
        for name in later:
            (vault_dir / name).write_text("2\n")
        # Every event is queued (the readiness signal) and, the watcher being in the
        # callback, none delivered: the next batch must take them all at once.
        deadline = time.monotonic() + 10
        while not watcher.pending() >= later:
            assert time.monotonic() < deadline, f"queued: {sorted(watcher.pending())}"
            time.sleep(0.01)
        assert len(seen) == 1
        gate.set()
        assert recorder.wait_until(lambda: len(seen) == 2)
        assert seen[1] == {f"private/notes/later{i}.md" for i in range(20)}
    finally:
        gate.set()
        watcher.stop()


def test_a_failing_callback_is_reported_and_watching_goes_on(vault_dir: Path, start: Start) -> None:
    recorder = Recorder()
    calls = recorder.batches

    def flaky(paths: set[str]) -> None:
        recorder.on_paths(paths)
        if len(calls) == 1:
            raise OSError("disk full")

    errors: list[BaseException] = []
    watcher = VaultWatcher(vault_dir, flaky, lambda: None, on_error=errors.append)
    watcher.start()
    try:
        (vault_dir / "private/notes/a.md").write_text("a\n")
        assert recorder.wait_until(lambda: len(calls) == 1)
        settle(watcher)
        (vault_dir / "private/notes/b.md").write_text("b\n")
        assert recorder.wait_until(lambda: len(calls) == 2)
        assert [str(e) for e in errors] == ["disk full"]
    finally:
        watcher.stop()


# -- distrust: falling back to polling ---------------------------------------------------------


def failing_observer(code: int, where: str = "schedule") -> Callable[[], BaseObserver]:
    """An inotify observer that fails like an exhausted kernel limit."""

    class Failing(InotifyObserver):
        def schedule(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
            raise OSError(code, os.strerror(code))

    def factory() -> BaseObserver:
        if where == "create":
            raise OSError(code, os.strerror(code))
        return Failing()

    return factory


def test_a_watch_limit_falls_back_to_polling(start: Start) -> None:
    watcher, recorder = start(observer_factory=failing_observer(errno.ENOSPC), poll_interval_s=0.05)
    assert watcher.state.mode == "polling"
    assert "max_user_watches" in watcher.state.reason
    assert recorder.wait_until(lambda: recorder.rescans >= 3)
    assert recorder.states[0] == watcher.state
    watcher.stop()
    assert watcher.state == WatchState("stopped")
    assert recorder.states[-1] == WatchState("stopped")
    assert watcher_threads() == []


def test_an_instance_limit_falls_back_to_polling(start: Start) -> None:
    watcher, recorder = start(
        observer_factory=failing_observer(errno.EMFILE, where="create"), poll_interval_s=0.05
    )
    assert watcher.state.mode == "polling"
    assert "max_user_instances" in watcher.state.reason
    assert recorder.wait_until(lambda: recorder.rescans >= 2)


def test_polling_can_be_forced(vault_dir: Path, start: Start) -> None:
    watcher, recorder = start(force_polling=True, poll_interval_s=0.05)
    assert watcher.state == WatchState("polling", "polling was requested")
    (vault_dir / NOTE).write_text("x\n")
    assert recorder.wait_until(lambda: recorder.rescans >= 2)
    assert recorder.batches == []
    assert not [t for t in watcher_threads() if isinstance(t, BaseThread)]  # no inotify at all


def test_a_network_filesystem_is_polled(vault_dir: Path, tmp_path: Path, start: Start) -> None:
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "self/mounts").write_text(
        f"/dev/vda / ext4 rw 0 0\nserver:/export {vault_dir.parent} nfs4 rw,relatime 0 0\n"
    )
    watcher, recorder = start(proc_root=proc, poll_interval_s=0.05)
    assert watcher.state.mode == "polling"
    assert "nfs4" in watcher.state.reason
    assert recorder.wait_until(lambda: recorder.rescans >= 1)


def test_more_folders_than_the_watch_limit_are_polled(vault_dir: Path, tmp_path: Path, start: Start) -> None:
    proc = tmp_path / "proc"
    (proc / "sys/fs/inotify").mkdir(parents=True)
    (proc / "sys/fs/inotify/max_user_watches").write_text("3\n")
    for i in range(5):
        (vault_dir / f"private/d{i}").mkdir()
    watcher, _ = start(proc_root=proc)
    assert watcher.state.mode == "polling"
    assert "max_user_watches" in watcher.state.reason


def test_mount_table_lookup() -> None:
    mounts = (
        "/dev/vda / ext4 rw 0 0\n"
        "host:/share /mnt/my\\040share cifs rw 0 0\n"
        "ada@box: /home/ada/remote fuse.sshfs rw 0 0\n"
        "/dev/sdb1 /media/win fuseblk rw 0 0\n"
    )
    assert filesystem_type(Path("/mnt/my share/vault"), mounts) == "cifs"
    assert filesystem_type(Path("/mnt/my"), mounts) == "ext4"
    assert filesystem_type(Path("/home/ada/remote/v"), mounts) == "fuse.sshfs"
    assert untrusted_filesystem("cifs")
    assert untrusted_filesystem("fuse.sshfs")
    assert not untrusted_filesystem("fuseblk")
    assert not untrusted_filesystem("ext4")
    assert not untrusted_filesystem(None)


def test_a_queue_overflow_falls_back_to_polling(start: Start) -> None:
    watcher, recorder = start(poll_interval_s=0.05)
    assert watcher.state == WatchState("watching")
    # What watchdog logs when the kernel reports IN_Q_OVERFLOW.
    logging.getLogger(f"{WATCHDOG_LOGGER}.inotify_c").warning(
        "Inotify queue overflowed; filesystem events were lost"
    )
    assert watcher.state.mode == "polling"
    assert "overflow" in watcher.state.reason
    assert recorder.wait_until(lambda: recorder.rescans >= 2)
    # watchdog itself is stopped once the watcher gave up on it
    for thread in watcher_threads():
        if isinstance(thread, BaseThread):
            thread.join(5)
    assert not [t for t in watcher_threads() if isinstance(t, BaseThread)]


def test_a_dead_observer_thread_falls_back_to_polling(start: Start) -> None:
    observers: list[BaseObserver] = []

    def factory() -> BaseObserver:
        observers.append(InotifyObserver())
        return observers[-1]

    watcher, recorder = start(observer_factory=factory, poll_interval_s=0.05)
    assert watcher.state.mode == "watching"
    observers[0].stop()  # behind the watcher's back, as a crash would
    observers[0].join()
    assert recorder.wait_until(lambda: watcher.state.mode == "polling")
    assert "stopped unexpectedly" in watcher.state.reason
    assert recorder.wait_until(lambda: recorder.rescans >= 1)


def test_a_vanished_vault_folder_falls_back_to_polling(vault_dir: Path, start: Start) -> None:
    watcher, recorder = start(poll_interval_s=0.05)
    shutil.rmtree(vault_dir)
    assert recorder.wait_until(lambda: watcher.state.mode == "polling")
    assert "moved or deleted" in watcher.state.reason
    assert recorder.wait_until(lambda: recorder.rescans >= 1)


@pytest.mark.parametrize("how", ["moved", "unmounted"])
def test_a_vault_folder_moved_away_or_emptied_falls_back_to_polling(
    vault_dir: Path, tmp_path: Path, start: Start, how: str
) -> None:
    """inotify follows a moved folder (its threads live on) and an unmounted one leaves an
    empty mount point: neither says so by an event, so the health check looks."""
    (vault_dir / "private").mkdir(exist_ok=True)
    watcher, recorder = start(poll_interval_s=0.05)
    if how == "moved":
        vault_dir.rename(tmp_path / "moved-away")
    else:
        shutil.rmtree(vault_dir)
        vault_dir.mkdir()
    assert recorder.wait_until(lambda: watcher.state.mode == "polling")
    assert "moved or deleted (or unmounted)" in watcher.state.reason


def test_stop_is_idempotent_and_start_happens_once(vault_dir: Path) -> None:
    watcher = VaultWatcher(vault_dir, lambda paths: None, lambda: None)
    watcher.stop()  # never started: nothing to do
    watcher.start()
    with pytest.raises(RuntimeError):
        watcher.start()
    watcher.stop()
    watcher.stop()
    assert watcher.state == WatchState("stopped")
    assert watcher_threads() == []


def test_events_outside_the_root_are_ignored() -> None:
    from watchdog.events import FileCreatedEvent, FileMovedEvent

    prefix = "/v/"
    assert event_paths(prefix, FileCreatedEvent("/elsewhere/x.md")) == set()
    assert event_paths(prefix, FileCreatedEvent("/vault2/private/x.md")) == set()
    assert event_paths(prefix, FileMovedEvent("/v/private/.x.md.tmp", "/v/private/x.md")) == {"private/x.md"}
    assert event_paths(prefix, FileMovedEvent("/v/private/x.md", "/elsewhere/x.md")) == {"private/x.md"}


# -- end to end: the projections equal a fresh scan -----------------------------------------------

PARTITIONS = ("private", "work")
FOLDERS = ("people", "notes", "projects", "claims", "deep/inner")
NAMES = [f"n{i}" for i in range(16)]
IDS = [f"pg_{i}" for i in range(10)]
WORK_ONTOLOGY = """format: knowledge-ontology-v1
name: work
version: 1.0.{v}
extends: knowledge-default
definitions:
  - name: experiment
    kind: page
    directory: experiments/
"""


def projection_rows(vault: Vault) -> dict[str, list[tuple[object, ...]]]:
    """Every projection table's rows (test_reconcile's snapshot plus the parse
    cache, ontology state and every partition's keyword rows), minus what
    depends on the copy (stat fields) or on history (rowids, timestamps)."""
    out = snapshot(vault)
    conn = vault.store.reader()
    out["files"] = sorted(
        map(tuple, conn.execute("SELECT path, scope, entry_kind, size, sha256, node FROM files")), key=repr
    )
    out["ontology_state"] = sorted(map(tuple, conn.execute("SELECT * FROM ontology_state")), key=repr)
    out["keyword_pending_v1"] = sorted(map(tuple, conn.execute("SELECT * FROM keyword_pending_v1")))
    for scope in PARTITIONS:
        if scope == "private":
            continue
        for table in (f"keyword_rows_v1_{scope}", f"keyword_history_rows_v1_{scope}"):
            fts = table.replace("rows", "fts")
            exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name=?", (table,)).fetchone()
            if exists:
                rows = conn.execute(
                    f"SELECT r.*, f.title, f.aliases, f.body FROM {table} r JOIN {fts} f ON f.rowid = r.rowid"
                )
                out[table] = sorted((tuple(row)[1:] for row in rows), key=repr)
    return out


class RandomOps:
    """A seeded stream of the file operations people and tools perform on a vault."""

    def __init__(self, root: Path, outside: Path, seed: int) -> None:
        self.root = root
        self.outside = outside
        self.rng = random.Random(seed)
        self.serial = 0
        self.publish: Callable[[random.Random], None] | None = None
        """When set, some steps write through the publish path instead of the file system."""

    def _next(self) -> int:
        self.serial += 1
        return self.serial

    def _walk(self) -> tuple[list[Path], list[Path]]:
        files: list[Path] = []
        folders: list[Path] = []
        for part in PARTITIONS:
            for folder, dirnames, filenames in os.walk(self.root / part):
                dirnames.sort()
                folders.extend(Path(folder, d) for d in dirnames)
                files.extend(Path(folder, f) for f in sorted(filenames) if f.endswith(".md"))
        return files, folders

    def files(self) -> list[Path]:
        return self._walk()[0]

    def folders(self) -> list[Path]:
        return self._walk()[1]

    def some_path(self) -> Path:
        part = self.rng.choice(PARTITIONS)
        return self.root / part / self.rng.choice(FOLDERS) / f"{self.rng.choice(NAMES)}.md"

    def text(self, path: Path) -> str:
        rng = self.rng
        scope = path.relative_to(self.root).parts[0]
        roll = rng.random()
        if roll < 0.08:
            return "---\ntitle: [unclosed\n---\nbroken yaml\n"
        if roll < 0.14:
            return "# just a note\n\nno frontmatter\n"
        body = " ".join(f"[[{rng.choice(['Ada', 'Bob', 'n1', 'people/n2', 'x'])}]]" for _ in range(3))
        record_id = rng.choice(IDS)
        if roll < 0.3:
            fields = envelope(
                record_id.replace("pg_", "cl_"),
                "claim",
                "A claim",
                scope,
                claim_kind="fact",
                assertion_origin="source",
                attribution="Ada in the stand-up",
                evidence=[{"path": f"people/{rng.choice(NAMES)}.md"}],
                entities=[rng.choice(IDS)],
            )
        else:
            extra: dict[str, object] = {}
            if rng.random() < 0.3:
                extra["aliases"] = [rng.choice(["Ada", "Bob", "Zed"])]
            if rng.random() < 0.1:
                extra["lifecycle"] = "merged"
                extra["merged_into"] = rng.choice(IDS)
            if rng.random() < 0.1:
                scope = "elsewhere"  # a scope mismatch: invalid record
            fields = envelope(record_id, "page", rng.choice(["Ada", "Bob", "Carol"]), scope, **extra)
        # libyaml's emitter: the pure-Python one would make this test slow
        head = yaml.dump(fields, Dumper=yaml.CSafeDumper, sort_keys=False, width=1000)
        return f"---\n{head}---\n{body}\nstep {self.serial}\n"

    def write(self, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def step(self) -> None:
        self._next()
        rng = self.rng
        roll = rng.random()
        files = self.files()
        if roll < 0.30 or not files:
            path = self.some_path()
            self.write(path, self.text(path))
        elif roll < 0.45:
            path = rng.choice(files)
            tmp = path.with_name(
                rng.choice([f"{path.name}.tmp", f".{path.name}.swp.tmp", f"{path.name}___jb_tmp___"])
            )
            self.write(tmp, self.text(path))
            os.replace(tmp, path)
        elif roll < 0.55:
            rng.choice(files).unlink()
        elif roll < 0.70:
            src = rng.choice(files)
            dest = self.some_path()
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                os.rename(src, dest)
        elif roll < 0.75:
            folders = [f for f in self.folders() if f.name in ("inner", "deep", "notes", "people", "m")]
            if folders:
                src = rng.choice(folders)
                dest = src.with_name(rng.choice(["people", "notes", "projects", "m", "deep"]))
                if not dest.exists() and not str(dest).startswith(str(src) + os.sep):
                    os.rename(src, dest)
        elif roll < 0.80:
            src = rng.choice(files)
            os.rename(src, self.outside / f"out{self.serial}.md")
        elif roll < 0.84:
            staged = self.outside / f"in{self.serial}.md"
            dest = self.some_path()
            self.write(staged, self.text(dest))
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, dest)
        elif roll < 0.86:
            staged = self.outside / f"dir{self.serial}"
            for name in rng.sample(NAMES, 3):
                self.write(staged / f"{name}.md", self.text(self.root / "private/x.md"))
            dest = self.root / "private" / rng.choice(["imported", "notes/imported"])
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.rename(staged, dest)
        elif roll < 0.88:
            folders = [f for f in self.folders() if f.name in ("imported", "inner", "m")]
            if folders:
                os.rename(rng.choice(folders), self.outside / f"gone{self.serial}")
        elif roll < 0.91:
            manifest = self.root / "work/ontology.yaml"
            choice = rng.random()
            if choice < 0.3 and manifest.exists():
                manifest.unlink()
            elif choice < 0.45:
                self.write(manifest, "format: knowledge-ontology-v1\nname: [broken\n")
            else:
                self.write(manifest, WORK_ONTOLOGY.format(v=self.serial))
        elif roll < 0.95 and self.publish is not None:
            self.publish(rng)
        else:
            path = rng.choice(files)
            os.utime(path, None)  # touched, not changed


def publish_a_page(vault: Vault, rng: random.Random) -> bool:
    """Create a note, or edit the body of a page whose id names one file, through the publish
    path; False when a fence or a rule refused it (the folder changes under it all the time,
    and the random ids are shared by many files)."""
    try:
        if rng.random() < 0.5:
            scope = rng.choice(PARTITIONS)
            title = f"Published {rng.randrange(1 << 30)}"
            vault.new_record(f"---\nkind: page\ntitle: {title}\nscope: {scope}\ntype: note\n---\n[[Ada]]\n")
            return True
        listed = [p["id"] for p in vault.records(RecordFilter(kind="page"), limit=1000)["items"]]
        unique = sorted(i for i in set(listed) if len(vault.find(i)) == 1)
        if not unique:
            return False
        fence = fence_of(vault, rng.choice(unique))
        vault.edit_body(fence, f"Published {rng.random():.6f}, see [[Ada]].\n", actor="test")
    except (WriteRejected, QueryError):
        return False
    return True


def test_a_thousand_random_operations_leave_the_projections_of_a_fresh_scan(
    kit: VaultKit, tmp_path: Path
) -> None:
    """Live vault: a watcher wired to reconcile keeps the projections equal to what a
    fresh full scan of the same folder builds — zero missed, zero phantom — with saves
    through the publish path interleaved among the outside edits (issue 14)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    for part in PARTITIONS:
        kit.page(f"{part}/people/seed.md", "pg_seed", "Seed", body="[[Ada]]\n")
    vault = kit.scan()
    recorder = Recorder()

    def on_paths(paths: set[str]) -> None:
        recorder.on_paths(paths)
        vault.reconcile(paths, source="watcher")

    def on_rescan() -> None:
        recorder.on_rescan()
        vault.reconcile(source="watcher")

    watcher = VaultWatcher(vault.root, on_paths, on_rescan, recorder.on_state, on_error=recorder.on_error)
    published: list[bool] = []
    watcher.start()
    try:
        ops = RandomOps(kit.root, outside, seed=20260928)
        ops.publish = lambda rng: published.append(publish_a_page(vault, rng))
        for _ in range(1200):
            ops.step()
        assert watcher.wait_idle(timeout=30, quiet_s=1.0)
    finally:
        watcher.stop()
    assert published.count(True) >= 10
    assert [i["state"] for i in vault.journal(limit=1000)["items"] if i["state"] != "published"] == []
    assert recorder.errors == [], "\n".join(recorder.tracebacks)
    assert recorder.rescans == 0
    assert [s.mode for s in recorder.states] == ["watching", "stopped"]
    assert len(recorder.batches) >= 2
    incremental = projection_rows(vault)
    kit.close()

    copy = tmp_path / "copy"
    shutil.copytree(kit.root, copy, ignore=shutil.ignore_patterns(".knowledge"), symlinks=True)
    fresh = Vault.open(copy)
    try:
        fresh.reconcile()
        expected = projection_rows(fresh)
    finally:
        fresh.close()
    assert sorted(expected) == sorted(incremental)
    for table in expected:
        missing = [r for r in expected[table] if r not in incremental[table]]
        phantom = [r for r in incremental[table] if r not in expected[table]]
        assert (missing, phantom) == ([], []), table
    assert len(incremental["catalog"]) > 20
    assert watcher_threads() == []
