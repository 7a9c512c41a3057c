"""Which vault paths a raw watchdog event is about: the watcher's pure rules.

Kept apart from the watcher's threads so the rules can be read and tested
on their own (ARCHITECTURE.md, Data flow §3). They over-report rather than
under-report: a move gives both ends, a folder event gives the folder (the
reconciler walks it), an editor's backup-rename (`x.md` → `x.md~`) gives
`x.md`, which the reconciler then finds rewritten. Open and close events
and editors' temp, lock and backup names are dropped, since the reconciler
would ignore them anyway (`walk.classify_path`) and they must not even wake
it. `collapse` folds a burst in one folder into the folder, before a batch
is handed on.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterable

from watchdog.events import (
    DirAttribEvent,
    DirModifiedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    FileOpenedEvent,
    FileSystemEvent,
    FileSystemMovedEvent,
)

from knowledge_desktop.engine.fs.walk import classify_path, is_ignored_path

DEFAULT_COLLAPSE_THRESHOLD = 500
"""More changed paths than this directly in one folder are sent as the folder.

The reconciler walks a folder in one pass, while each path of a vanished file
costs it a scan of the known paths; 500 keeps a mass delete cheap and is far
above what one person's edits produce."""


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
    return not is_ignored_path(rel) and not is_temporary(rel.rpartition("/")[2])


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
    wanted = is_watched_folder if event.is_directory else is_watched_file
    return {rel for rel in _relative_paths(prefix, event) if wanted(rel)}


Notice = Callable[[str, bool], bool]
"""A caller's own rule for paths the walk rules drop: (vault-relative path, is a folder) →
whether to report it anyway."""


def noticed_paths(prefix: str, event: FileSystemEvent, notice: Notice) -> set[str]:
    """The vault paths of `event` that `notice` asks for, among those `event_paths` drops
    (the same events are skipped: open, close, a folder's "modified", synthetic ones)."""
    wanted = is_watched_folder if event.is_directory else is_watched_file
    return {
        rel for rel in _relative_paths(prefix, event) if not wanted(rel) and notice(rel, event.is_directory)
    }


def _relative_paths(prefix: str, event: FileSystemEvent) -> list[str]:
    """The vault-relative paths an event names (both sides of a move), none for the events
    that carry no change of their own (open, close, a folder's "modified", synthetic ones)."""
    if isinstance(event, _DROPPED_EVENTS) or event.is_synthetic:
        return []
    raws: list[bytes | str] = [event.src_path]
    if isinstance(event, FileSystemMovedEvent):
        raws.append(event.dest_path)
    rels = (vault_relative(prefix, raw) for raw in raws if raw)
    return [rel for rel in rels if rel is not None]


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
