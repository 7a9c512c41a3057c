"""Documentation repositories beside a vault: which are added, their extraction, their watch.

Issue 17 §3. The list is per vault and lives in the window's QSettings (key
`repositoriesByVault`: JSON mapping the vault folder's real path to the
repository folders added to it, in the order added). It is UI state, not
vault content, so it is not written into the vault's folder. The history
window chosen for each (the commits to read, a tag to stop at) is kept beside
it, under `repositoryHistoryByVault` (vault path → repository folder →
`{"maxCommits": N, "sinceTag": TAG or null}`).

Each repository keeps one `Extractor` (engine/extraction) so a re-run after
an edit parses only what changed; its runs are serialised by a lock since two
workers may pick up consecutive requests. A watchdog observer on the
repository folder reports edits to its documents and moves of HEAD (writes
under `.git/HEAD`, `.git/refs/` and `.git/packed-refs`); everything else under
`.git` (objects, the index, logs) is ignored. A linked worktree or a submodule
has a `.git` *file* naming its Git folder elsewhere: that folder's HEAD and its
common folder's refs are watched as well. Reports are debounced on the UI
thread before a re-extraction is asked for.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, QTimer, Signal, SignalInstance
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from knowledge_desktop.engine.extraction import ExtractOptions, Extractor
from knowledge_desktop.engine.extraction.bounds import DEFAULT_MAX_COMMITS, MAX_COMMITS, MIN_COMMITS
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_claims import vault_claims

log = logging.getLogger(__name__)

SETTINGS_KEY = "repositoriesByVault"
HISTORY_KEY = "repositoryHistoryByVault"
DEBOUNCE_MS = 400


def _vault_key(vault_root: Path) -> str:
    return os.path.realpath(vault_root)


def _stored(settings: QSettings, key: str) -> dict[str, Any]:
    """The JSON object kept under `key`; empty when absent or not an object (hand-edited)."""
    raw = settings.value(key, "")
    try:
        data = json.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _all(settings: QSettings) -> dict[str, list[str]]:
    data = _stored(settings, SETTINGS_KEY)
    return {k: [p for p in v if isinstance(p, str)] for k, v in data.items() if isinstance(v, list)}


def added_repositories(settings: QSettings, vault_root: Path) -> list[str]:
    """The repository folders added to the vault at `vault_root`, in the order added."""
    return _all(settings).get(_vault_key(vault_root), [])


def set_repositories(settings: QSettings, vault_root: Path, folders: list[str]) -> None:
    data = _all(settings)
    if folders:
        data[_vault_key(vault_root)] = folders
    else:
        data.pop(_vault_key(vault_root), None)
    settings.setValue(SETTINGS_KEY, json.dumps(data, sort_keys=True))
    settings.sync()


def _all_history(settings: QSettings) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in _stored(settings, HISTORY_KEY).items() if isinstance(v, dict)}


def history_options(settings: QSettings, vault_root: Path, folder: str) -> ExtractOptions:
    """The history window chosen for `folder` in this vault; the default one when none was,
    or when what is stored is not a valid window (edited by hand, from another version)."""
    stored = _all_history(settings).get(_vault_key(vault_root), {}).get(folder)
    if not isinstance(stored, dict):
        return ExtractOptions()
    count, tag = stored.get("maxCommits"), stored.get("sinceTag")
    if not (type(count) is int and MIN_COMMITS <= count <= MAX_COMMITS):  # a bool is no count
        count = DEFAULT_MAX_COMMITS
    return ExtractOptions(max_commits=count, since_tag=tag if isinstance(tag, str) and tag else None)


def set_history_options(
    settings: QSettings, vault_root: Path, folder: str, options: ExtractOptions | None
) -> None:
    """Remember `options` for `folder` in this vault (None: forget them)."""
    data = _all_history(settings)
    kept = data.setdefault(_vault_key(vault_root), {})
    if options is None or options == ExtractOptions():
        kept.pop(folder, None)
    else:
        kept[folder] = {"maxCommits": options.max_commits, "sinceTag": options.since_tag}
    if not kept:
        data.pop(_vault_key(vault_root))
    settings.setValue(HISTORY_KEY, json.dumps(data, sort_keys=True))
    settings.sync()


class Extraction:
    """One repository's kept `Extractor`, run on workers one at a time."""

    def __init__(self, root: Path, options: ExtractOptions | None = None) -> None:
        self.root = root
        self.options = options or ExtractOptions()
        """The window the next run reads (set on the UI thread, read by the worker)."""
        self.tags: list[str] = []
        """The local tags the last run found, for choosing a window's edge."""
        self.extractor: Extractor | None = None
        self.lock = threading.Lock()
        self.document: dict[str, Any] | None = None
        """The last result taken on the UI thread (read by the backlinks section)."""
        self.snapshot: dict[str, Any] | None = None
        """The discovery snapshot (code modules and symbols) of that result, on the UI thread."""

    def run(self, vault: Vault | None) -> dict[str, Any]:
        """Extract now (on a worker), linking the vault's current claims."""
        return self.run_with_symbols(vault)[0]

    def run_with_symbols(self, vault: Vault | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """Extract now (on a worker): the document and the discovery snapshot it linked to,
        taken together under the lock so the two always belong to one run."""
        memory = vault_claims(vault) if vault is not None else None
        options = self.options
        with self.lock:
            if self.extractor is None:
                self.extractor = Extractor(self.root, options)
            elif self.extractor.options != options:
                self.extractor.set_options(options)
            document = self.extractor.extract(memory)
            discovery = self.extractor.last_discovery
            return document, discovery.as_json() if discovery is not None else None


def _moves_head(rel: str) -> bool:
    """A path inside a Git folder whose change can move HEAD or a branch."""
    return rel in ("HEAD", "packed-refs") or rel.startswith("refs/")


def _relevant(root: str, path: str) -> bool:
    """An edit the extraction can see: a file outside `.git`, or a move of HEAD or a ref."""
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    if rel == ".git" or not rel.startswith(".git/"):
        return not rel.startswith("..")
    return _moves_head(rel[len(".git/") :])


def linked_git_folders(root: Path) -> list[Path]:
    """The Git folders a `.git` file points to (a linked worktree, a submodule).

    `.git` is then a file holding `gitdir: PATH`; HEAD is in that folder, and the
    branches are in its common folder (named by its `commondir` file) when it has
    one. An ordinary repository (a `.git` folder) or no repository gives none:
    the root's own watch already sees those.
    """
    dotgit = root / ".git"
    folders: list[Path] = []
    try:
        if not dotgit.is_file():
            return []
        first = dotgit.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
        if not first or not first[0].startswith("gitdir:") or not first[0][len("gitdir:") :].strip():
            return []
        gitdir = (root / first[0][len("gitdir:") :].strip()).resolve()
        folders.append(gitdir)
        common = (gitdir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
        if common:
            folders.append((gitdir / common).resolve())
    except (OSError, ValueError):  # unreadable, no commondir, a NUL in a path: what was read
        pass
    real_root = root.resolve()
    # Never a folder holding the repository itself ("gitdir: .."): its watch is the root's.
    return [f for f in folders if _is_folder(f) and not real_root.is_relative_to(f)]


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # a name too long, a NUL
        return False


class _Handler(FileSystemEventHandler):
    """Reports `key` when a path the `relevant(base, path)` test accepts changes."""

    def __init__(self, key: str, base: str, report: SignalInstance, git_folder: bool = False) -> None:
        self.key = key
        self.base = base
        self.report = report
        self.git_folder = git_folder

    def _relevant(self, path: str) -> bool:
        if not self.git_folder:
            return _relevant(self.base, path)
        rel = os.path.relpath(path, self.base).replace(os.sep, "/")
        return not rel.startswith("..") and _moves_head(rel)

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        if any(p and self._relevant(os.fsdecode(p)) for p in paths):
            self.report.emit(self.key)


class RepositoryWatcher(QObject):
    """Watches added repositories; `changed(root)` fires once per quiet gap after edits."""

    changed = Signal(str)
    _reported = Signal(str)  # from watchdog's thread; queued to this object's thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._observers: dict[str, BaseObserver] = {}
        self._timers: dict[str, QTimer] = {}
        self._reported.connect(self._debounce)

    def watch(self, root: Path) -> None:
        key = str(root)
        if key in self._observers:
            return
        observer = Observer()
        try:
            observer.schedule(_Handler(key, key, self._reported), key, recursive=True)
            for folder in linked_git_folders(root):
                handler = _Handler(key, str(folder), self._reported, git_folder=True)
                observer.schedule(handler, str(folder), recursive=True)
            observer.start()
        except OSError as exc:  # a missing folder, a watch limit: shown as stale, never a crash
            log.warning("cannot watch %s: %s", key, exc)
            return
        self._observers[key] = observer

    def unwatch(self, root: Path) -> None:
        observer = self._observers.pop(str(root), None)
        timer = self._timers.pop(str(root), None)
        if timer is not None:
            timer.stop()
        if observer is not None:
            observer.stop()
            observer.join(timeout=2)

    def stop(self) -> None:
        for key in list(self._observers):
            self.unwatch(Path(key))

    def _debounce(self, root: str) -> None:
        if root not in self._observers:
            return
        timer = self._timers.get(root)
        if timer is None:
            timer = QTimer(self)
            timer.setSingleShot(True)
            timer.setInterval(DEBOUNCE_MS)
            timer.timeout.connect(lambda r=root: self.changed.emit(r))
            self._timers[root] = timer
        timer.start()
