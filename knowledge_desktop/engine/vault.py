"""The `Vault` facade: the one object the CLI and the window talk to.

`Vault.open(path)` finds or creates `.knowledge/` (manifest and
`state.sqlite`; `vault_state.py` decides what a lost or damaged state is
reported as), and every read goes through `reconcile` first when the
caller asks for freshness. Errors a user can act on (no such folder, not a
vault, no permission) are `VaultError`s with a one-line message; a vault
folder that vanishes while open is `VaultGone`, a state folder deleted
while open `StateMissing` (after its database is written back).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine import heap
from knowledge_desktop.engine.changes import ChangeSet, Source
from knowledge_desktop.engine.errors import (
    Cancelled,
    NotAVault,
    QueryError,
    StateDamaged,
    StateError,
    StateMissing,
    VaultError,
    VaultGone,
    VaultNotFound,
    VaultRefused,
)
from knowledge_desktop.engine.fs.refused import refusal
from knowledge_desktop.engine.fs.walk import is_ignored_folder, walk
from knowledge_desktop.engine.ontology.view import ontology_view
from knowledge_desktop.engine.query import catalog_tree as catalog_tree_module
from knowledge_desktop.engine.query import grep_notes as grep_notes_module
from knowledge_desktop.engine.query import inventory
from knowledge_desktop.engine.query import lookup as lookup_module
from knowledge_desktop.engine.query import lookup_notes as lookup_notes_module
from knowledge_desktop.engine.query import merge_candidates as merge_candidates_module
from knowledge_desktop.engine.query import record_context as record_context_module
from knowledge_desktop.engine.query import timeline as timeline_module
from knowledge_desktop.engine.query.diagnostics_table import DiagnosticsTable
from knowledge_desktop.engine.reconcile import Progress, Reconciler
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.store import faults
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.store.projections import keyword as keyword_projection
from knowledge_desktop.engine.store.projections import note_text as note_text_projection
from knowledge_desktop.engine.vault_history import VaultHistory
from knowledge_desktop.engine.vault_state import (
    STATE_DB,
    STATE_DIR,
    open_state,
    record_incident,
    set_aside_and_salvage,
    state_findings,
    write_manifest,
)
from knowledge_desktop.engine.write.findings import findings as write_findings
from knowledge_desktop.engine.write.operations import create, pages
from knowledge_desktop.engine.write.plan import Fence, Plan, Request
from knowledge_desktop.engine.write.publish import Planner, Publisher
from knowledge_desktop.engine.write.requests import make_request

if TYPE_CHECKING:
    from knowledge_desktop.engine.query.grep_query import GrepQuery

_T = TypeVar("_T")

TEXT_CHUNK = 2048
"""Records whose text one write transaction of the window's background build indexes:
eight weight blocks, about a second at 100k."""
INLINE_TEXT = 500
"""The longest text queue a search indexes itself when text is built in the background."""
INLINE_WAIT_S = 2.0
"""How long such a search waits for the vault before answering from what is indexed."""
EMBED_STEP = 256
"""Files of each scope one step of a whole embedding embeds (`index_meaning`): about 3,300
passages, a second or two of the model's time, spent without the vault."""
STALE_STEPS = 3
"""Steps in a row that stored nothing (every file read had changed by the time its vectors
were ready) after which a whole embedding stops, leaving the rest queued for the next call."""


def _looks_like_vault(root: Path) -> bool:
    """A folder with `.knowledge/`, with a partition holding Markdown or an ontology, or with
    Markdown at its root: a flat Obsidian vault, every note at the root, is a vault of notes
    (issue 25, §5) as much as one whose notes sit in folders."""
    if (root / STATE_DIR).is_dir():
        return True
    try:
        entries = list(root.iterdir())
    except OSError:
        return False
    if any(p.name.lower().endswith(".md") and not p.name.startswith(".") and p.is_file() for p in entries):
        return True
    partitions = [
        p for p in entries if p.is_dir() and not p.is_symlink() and not is_ignored_folder("", p.name)
    ]
    for partition in partitions:
        if (partition / "ontology.yaml").is_file():
            return True
        for dirpath, dirnames, filenames in os.walk(partition):
            parent = os.path.basename(dirpath)
            dirnames[:] = [d for d in dirnames if not is_ignored_folder(parent, d)]
            if any(f.lower().endswith(".md") for f in filenames):
                return True
    return False


class Vault:
    def __init__(self, root: Path, state_dir: Path, store: Store, read_only: bool, vault_id: str) -> None:
        self.root = root
        self.state_dir = state_dir
        self.read_only = read_only
        self.vault_id = vault_id
        self._lock = threading.RLock()
        self._embedding = threading.Lock()
        self.last_scan: ChangeSet | None = None
        self.text_in_background = False
        self.state_outside = False
        """`.knowledge` is a link out of the vault: not followed (see `open`)."""
        self._attach(store)
        self.repairs: list[dict[str, Any]] = []
        """The damage incidents `repair_state` handled while this vault was open."""
        self.on_repaired: Callable[[dict[str, Any], ChangeSet], None] | None = None
        """Called (on the repairing thread) with the incident and the rebuild's ChangeSet after
        a repair, so a host tells it and refreshes what it shows."""
        self._writes_started = 0
        """Writes begun while open: `repairing` never runs work that began one twice."""
        self._retired_stores: list[Store] = []
        """Stores a repair replaced, whose readers are closed with the vault."""
        self.on_publish: Callable[[ChangeSet], None] | None = None
        """Called with the ChangeSet of each publish's reconcile, once the write is over, so a
        host (the window) updates its panes from a write as from the watcher (which then finds
        nothing new)."""
        self._unannounced: list[ChangeSet] | None = None
        """While a write is under way, its ChangeSets, for `on_publish` when it is over
        (`_announcing`); None outside a write."""
        self.recovered: list[dict[str, Any]] = []
        """What `open` finished or rolled back of writes a dead process left pending."""
        """Set by a host that runs `index_keywords` on a worker after opening (the
        window): searches then answer at once from what is indexed."""
        self.detached: str | None = None
        """Why this vault no longer writes its state (its state folder was deleted while
        open and written back from the open database): reopen it to go on."""
        self.as_of: dict[str, Any] | None = None
        """Set on the read-only view of a past checkpoint (`engine/asof.py`)."""
        self.on_close: list[Callable[[], None]] = []
        """Run by `close` after the store is closed (the as-of view removes its folders)."""

    def _attach(self, store: Store) -> None:
        """Build what works on the database around `store` (at open, and after a repair)."""
        self.store = store
        self.reconciler = Reconciler(self.root, store)
        self.publisher = Publisher(
            self.root,
            self.state_dir,
            store,
            lambda: self.reconciler,
            self._reconcile_published,
            self.vault_id,
            self.read_only,
        )
        self.history = VaultHistory(self.root, self.state_dir, store, self.publisher)
        """Checkpoints and versions (issue 15): `engine/vault_history.py`."""

    # -- a database found damaged while open (docs/decisions.md, damaged state) ------------
    def repairing(self, work: Callable[[], _T]) -> _T:
        """Run `work`; when it meets a damaged `state.sqlite` (SQLITE_CORRUPT or NOTADB, however
        it surfaced), repair the state (`repair_state`) and run it once more on the new one.

        Work that started a write is not run again: the write may have replaced files before
        it met the damage, and running it twice could apply it twice, so the state is
        repaired and a `StateDamaged` says to look at the journal before writing again."""
        store, writes = self.store, self._writes_started
        try:
            return work()
        except Exception as exc:
            if isinstance(exc, (sqlite3.Error, StateError)):
                with self._lock:  # held by a repair on another thread until it is done
                    replaced = self.store is not store
                if replaced:
                    # Another thread repaired the state while this work read the old one (whose
                    # connections it closed): the work is run again on the new one.
                    return work()
            if not faults.damage_met(exc):
                raise
            incident = self.repair_state(store, exc)
            if self._writes_started != writes:
                raise StateDamaged(
                    f"{store.path} was found damaged during a write and set aside as "
                    f"{incident.get('movedTo')}, and the index was rebuilt; the write was not run "
                    "again: see the journal (`knowledge journal`) for whether it was applied"
                ) from exc
        return work()

    def repair_state(self, seen: Store, exc: BaseException) -> dict[str, Any]:
        """Set the damaged database aside, carry its durable rows into a new one, rebuild the
        projections (a full reconcile) and return the incident, which `vault_diagnostics`
        reports as `state-repaired` or `state-damaged`. `seen` is the store the damage was
        met on: when another thread already replaced it, its repair stands."""
        with self._lock:
            if self.store is not seen:
                return self.repairs[-1] if self.repairs else {}
            if self.as_of is not None or self.detached is not None:
                raise exc  # a past checkpoint's copy, or a state no longer written: not ours to mend
            cause = exc.__cause__ if isinstance(exc, StateDamaged) and exc.__cause__ else exc
            offload = self.reconciler.offload_from
            self.reconciler.workers.close()
            # Other threads may be reading the old file right now: its readers stay open (on
            # the file set aside) until the vault closes, and their work is run again.
            seen.close_writer()
            self._retired_stores.append(seen)
            store, incident = set_aside_and_salvage(seen.path, str(cause))
            if store.identity("vault_id") is None:  # store_identity itself was unreadable
                store.set_identity("vault_id", self.vault_id)
                store.set_identity("created_at", utc_now_text())
            record_incident(store, incident)
            self._attach(store)
            self.reconciler.offload_from = offload
            self.repairs.append(incident)
            change = self.reconcile()
        if self.on_repaired is not None:
            self.on_repaired(incident, change)
        return incident

    def verify(self) -> dict[str, Any] | None:
        """SQLite's check of every page (`PRAGMA quick_check`): damage no query has met yet (an
        index page no command reads) is repaired now; the incident, or None when sound."""
        before = len(self.repairs)

        def check() -> None:
            self.store.check_all()  # the store of the moment: a new one on the retry

        self.repairing(check)
        return self.repairs[-1] if len(self.repairs) > before else None

    # -- opening -------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Vault:
        if isinstance(path, str) and not path:  # Path("") is ".": whatever folder we run in
            raise VaultRefused("an empty path names no folder: give the vault's folder")
        root = Path(path).expanduser()
        if not root.exists():
            raise VaultNotFound(f"no such folder: {root}")
        if not root.is_dir():
            raise NotAVault(f"not a folder: {root}")
        if not os.access(root, os.R_OK | os.X_OK):
            raise VaultError(f"no permission to read {root}")
        root = root.resolve()
        refused = refusal(root)  # before anything is read or written (engine/fs/refused.py)
        if refused is not None:
            raise VaultRefused(refused)
        if not _looks_like_vault(root):
            raise NotAVault(
                f"{root} is not a vault: it has no .knowledge/ folder and no Markdown notes or"
                " records, at its root or in a folder"
            )
        if not (root / STATE_DIR).exists():
            # A folder opened for the first time is walked before `.knowledge/` is made in it,
            # so one far too big to be a vault is refused with nothing written (fs/walk.py).
            walk(root)
        heap.keep_freed_blocks()  # searches reuse large arrays instead of faulting them in
        state = open_state(root)
        vault = cls(root, state.state_dir, state.store, state.read_only, state.vault_id)
        vault.state_outside = state.outside
        if state.incident is not None:
            vault.repairs.append(state.incident)
        # A write interrupted by a crash is carried out (or rolled back) before anything
        # reads the vault, so no read sees half of a multi-file write (docs/writing.md).
        vault.recovered = vault.publisher.recover()
        vault.publisher.retry_checkpoints()
        return vault

    def close(self) -> None:
        self.reconciler.workers.close()
        if self.detached is None and not (self.state_dir / STATE_DB).exists() and self._root_present():
            # The state folder went away since the last reconcile: the open database is the
            # only copy left, so it is written back before it is closed (and gone for good).
            self.detached = self._write_state_back(self.state_dir / STATE_DB)
        if self.detached is None and (self.state_dir / STATE_DB).exists():
            self.publisher.flush_waiting()  # a run's batched checkpoints (docs/history.md)
        self.store.close()
        for retired in self._retired_stores:
            retired.close()
        while self.on_close:
            self.on_close.pop()()

    def parse_in_workers(self, from_files: int) -> None:
        """Parse batches of at least `from_files` files in worker processes kept warm.

        For hosts whose own thread must stay responsive (the window): parsing
        in a thread would hold the interpreter lock the UI thread needs.
        """
        self.reconciler.offload_from = from_files

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the one reconcile path ------------------------------------------------
    def reconcile(
        self,
        paths: Iterable[str] | None = None,
        source: Source = "scan",
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        baseline: bool = False,
    ) -> ChangeSet:
        """`baseline`: the caller makes the first checkpoint next (`knowledge scan`): a full
        scan whose files are read in workers has them pack its blobs beside its writes
        (`VaultHistory.baseline_beside`)."""
        with self._lock:
            self._check_folders()
            if baseline and paths is None:
                self.reconciler.beside = self.history.baseline_beside
            try:
                change = self.reconciler.run(paths, source, progress=progress, cancel=cancel)
            finally:
                self.reconciler.beside = None
            if change.paths and source in ("scan", "watcher"):  # observed checkpoints (issue 15)
                self.history.note_observed(change.paths)
            if paths is None:
                self.last_scan = change
            return change

    def _check_folders(self) -> None:
        """Refuse to reconcile a vault whose folder or state went away while it was open.

        Without this a vanished (or unmounted, hence empty) vault folder read as
        "every file deleted" and emptied the index, and a deleted `.knowledge/`
        left every write going to a database nobody could open again.
        """
        if self.detached is not None:
            raise StateMissing(self.detached)
        if not self._root_present():
            raise VaultGone(
                f"the vault folder {self.root} was moved, deleted or unmounted while open; "
                "open it again from where it is now"
            )
        db_path = self.state_dir / STATE_DB
        if not db_path.exists():
            self.detached = self._write_state_back(db_path)
            raise StateMissing(self.detached)

    def _root_present(self) -> bool:
        """The vault folder is there and holds something (an unmounted one is an empty folder).
        A folder that is there but cannot be listed is not gone: that is the OS's own
        refusal, raised as it is (a permission a person can fix)."""
        try:
            with os.scandir(self.root) as entries:
                return next(entries, None) is not None
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError as exc:
            raise VaultError(f"{exc.strerror or exc} ({self.root})") from None

    def _write_state_back(self, db_path: Path) -> str:
        """The state folder was deleted while open: the open database still holds all of it,
        so it is written back (with the manifest) instead of being lost; the message to show."""
        try:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = db_path.with_name(f".{db_path.name}.restoring")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            self.store.backup_to(tmp)
            os.replace(tmp, db_path)
            write_manifest(self.state_dir, self.vault_id)
        except OSError as exc:
            return (
                f"{self.state_dir} was deleted while the vault was open, and writing it back failed "
                f"({exc}); withdrawal and supersession guards, receipts and history are lost unless "
                "you restore them from a backup"
            )
        return (
            f"{self.state_dir} was deleted while the vault was open; its database was written back from "
            "the open copy, so nothing was lost — open the vault again to keep it current"
        )

    def warm_up(self) -> None:
        """Load what incremental reconciles need (the in-memory graph) ahead of the first edit.

        On a large vault this takes seconds; the window does it on a worker
        right after opening, so the first outside edit is applied as fast as
        the rest instead of paying for the load. It holds no vault lock: the
        load reads only what is committed, so it runs beside the freshness
        check (mostly file system calls), and a reconcile that needs the graph
        meanwhile waits for this load instead of starting its own.
        """
        self.reconciler.graph()

    # -- reads ---------------------------------------------------------------------
    def records(
        self, f: inventory.RecordFilter | None = None, *, limit: int = 100, offset: int = 0
    ) -> dict[str, Any]:
        f = f or inventory.RecordFilter()
        if f.types is not None:
            f = replace(f, types=self.expand_types(f.types, f.scope))
        return inventory.records(self.store.reader(), f, limit, offset)

    def notes(
        self, folder: str | None = None, tag: str | None = None, limit: int | None = None, offset: int = 0
    ) -> dict[str, Any]:
        """One page of the vault's plain notes with their link counts (`query/notes.py`)."""
        from knowledge_desktop.engine.query import notes as notes_module

        if (limit is not None and limit < 0) or offset < 0:
            raise QueryError("limit and offset must not be negative")
        return notes_module.notes(self.store.reader(), folder, tag, limit, offset)

    def expand_types(self, types: Iterable[str], scope: str | None = None) -> frozenset[str]:
        """Type names plus their alias groups in the relevant partitions' ontologies."""
        out = set(types)
        for name, activation in self.reconciler.ontologies().items():
            if activation.ontology is not None and (scope is None or scope == name):
                for t in list(types):
                    out |= activation.ontology.expand(t)
        return frozenset(out)

    def find(self, id_or_path: str) -> list[dict[str, Any]]:
        return inventory.find(self.store.reader(), id_or_path)

    def show(self, id_or_path: str) -> dict[str, Any]:
        rows = self.find(id_or_path)
        if not rows:
            raise QueryError(f"no record or file {id_or_path!r} in this vault")
        if len(rows) > 1:
            paths = ", ".join(r["path"] for r in rows)
            raise QueryError(f"id {id_or_path!r} is used by several files ({paths}); show one by path")
        view = inventory.show(self.store.reader(), self.root, rows[0])
        conflicts = [d.as_json() for d in write_findings(self.publisher) if d.path == view["path"]]
        view["diagnostics"] = conflicts + view["diagnostics"]
        return view

    # -- the write side (engine/write; docs/writing.md) -------------------------------
    def write(self, request: Request, planner: Planner) -> dict[str, Any]:
        """Plan and publish one request through the one publish path; its receipt."""
        with self._lock, self._announcing():
            self._writes_started += 1
            return self.publisher.run(request, planner)

    def preview(self, request: Request, planner: Planner) -> Plan:
        """The plan `write` would publish, made now and not published (`Publisher.preview`)."""
        with self._lock:
            return self.publisher.preview(request, planner)

    def _reconcile_published(self, paths: list[str]) -> ChangeSet:
        change = self.reconcile(paths, "publish")
        if change.empty:
            return change
        if self._unannounced is not None:
            self._unannounced.append(change)
        elif self.on_publish is not None:
            self.on_publish(change)  # (recovery on open: no write under way)
        return change

    @contextlib.contextmanager
    def _announcing(self) -> Iterator[None]:
        """Hand `on_publish` the ChangeSets of a write once the write is over — published,
        rolled back or failed — never from inside it. The publish reconciles before it marks
        its journal entry published, and a host that read the vault on that ChangeSet (the
        window's panes, on workers) read the entry still pending: the diagnostics pane showed
        the write as interrupted and the Activity dock as pending, and kept showing it, as
        nothing changed after (issue 29, §1)."""
        if self._unannounced is not None:  # a write inside a write: the outer one announces
            yield
            return
        self._unannounced = []
        try:
            yield
        finally:
            changes, self._unannounced = self._unannounced, None
            if self.on_publish is not None:
                for change in changes:
                    self.on_publish(change)

    def resume(self, request_id: str, *, reviewed: bool = False) -> dict[str, Any]:
        with self._lock, self._announcing():
            self._writes_started += 1
            return self.publisher.resume(request_id, reviewed=reviewed)

    def journal(self, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        return self.publisher.listing(limit, offset)

    def new_record(self, text: str, **options: Any) -> dict[str, Any]:
        """Create a page, claim or relationship from a record file without the fields the
        store assigns (`write/operations/create.py`). `options`: see `make_request`."""
        return create.new_record(self.write, text, **options)

    def save_page(self, fence: str, text: str, **options: Any) -> dict[str, Any]:
        """Replace a page's whole file, fenced `ID:REVISION:HASH` (`write/operations/pages.py`)."""
        parsed = Fence.parse(fence)
        request = make_request("save", {"fence": fence, "record": text}, **options)
        return self.write(request, lambda ctx: pages.plan_save(ctx, parsed, text))

    def edit_body(self, fence: str, body: str, **options: Any) -> dict[str, Any]:
        """Replace only a page's body, fenced (`write/operations/pages.py`)."""
        parsed = Fence.parse(fence)
        request = make_request("edit-body", {"fence": fence, "body": body}, **options)
        return self.write(request, lambda ctx: pages.plan_edit_body(ctx, parsed, body))

    def diagnostics(self) -> list[dg.Diagnostic]:
        return inventory.diagnostics(self.store.reader(), self.vault_diagnostics())

    def diagnostics_table(self) -> DiagnosticsTable:
        """The findings to read in pages (the Diagnostics pane): the projection's rows, the
        vault's own findings and one "possible duplicates" row per merge candidate group."""
        extra = self.vault_diagnostics()
        extra.extend(merge_candidates_module.as_diagnostics(self.merge_candidates()))
        return DiagnosticsTable(self.store.reader, extra)

    def merge_candidates(self, scope: str | None = None) -> list[dict[str, Any]]:
        """Pages that may be one entity: a shared identity alias (strong) or the same title
        (weak); see `query.merge_candidates`."""
        return merge_candidates_module.merge_candidates(self.store.reader(), scope)

    def counts(self) -> dict[str, Any]:
        return inventory.counts(self.store.reader(), self.vault_diagnostics())

    def ontology(self, scope: str | None = None) -> list[dict[str, Any]]:
        ontologies = self.reconciler.ontologies()
        return [ontology_view(name, ontologies[name]) for name in sorted(ontologies) if scope in (None, name)]

    # -- retrieval ------------------------------------------------------------------
    def scopes(self) -> list[str]:
        return [
            s for (s,) in self.store.reader().execute("SELECT scope FROM keyword_state_v1 ORDER BY scope")
        ]

    def grep(self, q: GrepQuery, scope: str | None = None, *, replaced: bool = False) -> dict[str, Any]:
        """Keyword search. The text of changed records is indexed first (spec:
        retrieval-and-dates, index behaviour) unless the window is building a
        large queue in the background: then the answer comes from what is
        indexed and says so (`index.state` "partial", `index.pending`). With
        `replaced`, the answer also says how many of its total are current records
        reached through superseded wording (`replaced`; an extension's search needs it)."""
        if q.kind == grep_notes_module.NOTE:
            return self.grep_notes(q, scope)
        if q.types is not None:
            q = replace(q, types=self.expand_types(q.types, scope))
        scopes = [scope] if scope else self.scopes()
        if scope and scope not in self.scopes():
            raise QueryError(f"no partition named {scope!r}")
        from knowledge_desktop.engine.query import grep as grep_module  # numpy: only for search

        lag, pending = self._text_for_search(scopes)
        conn = self.store.reader()
        result = grep_module.grep(conn, q, scopes, lambda s: grep_module.scope_state(conn, s))
        if result["index"]["state"] == "unavailable":
            # A missing or corrupt projection is rebuilt from the Markdown, then asked again.
            self.rebuild()
            lag = self.index_keywords(scopes)
            pending = 0
            result = grep_module.grep(conn, q, scopes, lambda s: grep_module.scope_state(conn, s))
        result["index"]["lag"] = lag
        if not replaced:
            result.pop("replaced", None)
        if pending:
            result["index"]["state"] = "partial"
            result["index"]["pending"] = pending
        return result

    def grep_notes(self, q: GrepQuery, scope: str | None = None) -> dict[str, Any]:
        """Keyword search over notes only (issue 25 §3, `knowledge grep --kind note`); their
        queued text is indexed first, as records' is (`_text_for_search`)."""
        grep_notes_module.check(q)
        if scope and scope not in self.scopes():
            raise QueryError(f"no partition named {scope!r}")
        lag, pending = self._note_text_for_search()
        result = grep_notes_module.grep_notes(self.store.reader(), q, scope)
        result["index"]["lag"] = lag
        if pending:
            result["index"]["state"] = "partial"
            result["index"]["pending"] = pending
        return result

    def search_text(self, q: GrepQuery, scope: str | None = None) -> dict[str, Any]:
        """The window's search: records, then notes (issue 25 §3, "records first where both
        match"); among records, those the query names exactly (title or alias) first.
        A filter only records have (a record kind, type, lifecycle, date field)
        leaves notes out; `kind` "note" searches notes alone. `grep` stays records only,
        as the spec's search is."""
        if q.kind == grep_notes_module.NOTE:
            return self.grep_notes(q, scope)
        # A name typed whole finds its page first (issue 29 §8), not the relationships
        # that repeat the name in their titles and outscore it on BM25.
        records = self.grep(replace(q, names_first=True), scope)
        if not grep_notes_module.for_notes(q):
            return records
        if records["total"] is None:
            return records
        notes = self.grep_notes(grep_notes_module.notes_window(q, records), scope)
        result = grep_notes_module.combined(records, notes, q)
        if notes["index"].get("state") == "partial":
            result["index"] = {
                **result["index"],
                "state": "partial",
                "pending": result["index"].get("pending", 0) + notes["index"]["pending"],
            }
        return result

    def _note_text_for_search(self) -> tuple[bool, int]:
        """`_text_for_search` for notes' text: (lag, notes whose text is still queued)."""
        queued = note_text_projection.pending(self.store.reader())
        if not queued:
            return False, 0
        if not self.text_in_background:
            return self.index_note_text(), 0
        if queued > INLINE_TEXT or not self._lock.acquire(timeout=INLINE_WAIT_S):
            return False, queued
        try:
            return self.index_note_text(), 0
        finally:
            self._lock.release()

    def index_note_text(
        self,
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        chunk: int | None = None,
    ) -> bool:
        """Index the queued text of notes, as `index_keywords` does records' (same chunks,
        progress and cancelling); True when some note changed again since the scan."""
        total = note_text_projection.pending(self.store.reader())
        if not total:
            return False
        lag = False
        done = 0
        after = ""
        while True:
            if cancel is not None and cancel.is_set():
                raise Cancelled
            with self._lock, self.store.write(bulk=True) as tx:
                settled, chunk_lag, last = note_text_projection.sync(tx, self.root, after=after, limit=chunk)
            lag |= chunk_lag
            done += settled
            if last != after and progress is not None:
                progress("text", min(done, total), total)
            if chunk is None or last == after:
                return lag
            after = last

    def search(
        self, q: GrepQuery, mode: str = "hybrid", scope: str | None = None, *, notes: bool = False
    ) -> dict[str, Any]:
        """Search by words, by meaning or both (`query/hybrid.py`). As grep indexes the
        text of changed records first, this then embeds their passages (`index_meaning`).
        `notes`: notes too (the CLI and the window; never the knowledge API, whose reads
        are records under grants)."""
        from knowledge_desktop.engine.query import hybrid
        from knowledge_desktop.engine.semantic.model import embedder
        from knowledge_desktop.engine.store.projections.semantic_queue import NOTES

        if q.types is not None:
            q = replace(q, types=self.expand_types(q.types, scope))
        if scope and scope not in self.scopes():
            raise QueryError(f"no partition named {scope!r}")
        scopes = [scope] if scope else self.scopes()
        self._text_for_search(scopes)
        if notes:
            self._note_text_for_search()
        model = embedder()
        if mode != "keyword":
            self.index_meaning([*scopes, NOTES] if notes else scopes, model)
        return hybrid.search(
            self.store.reader(), str(self.store.path), q, scopes, mode, model, notes=notes, scope=scope
        )

    def related(
        self, path: str, limit: int = 5, *, wait: bool = True, embed_at_most: int | None = None
    ) -> list[dict[str, Any]]:
        """Records and notes near the record or note at `path` by meaning that it neither
        links to nor is linked from (`query/hybrid.related`); embeds what is queued first,
        or (`wait` False) answers from what is embedded when another thread is embedding.
        `embed_at_most`: when more files than that wait to be embedded (a vault never
        searched by meaning), embed none and answer from what is embedded: the window's
        Related line must not start an embedding of a whole large vault (17 minutes of a
        core and a gigabyte at 100k) because a record was shown."""
        from knowledge_desktop.engine.query import hybrid
        from knowledge_desktop.engine.store.projections.semantic_queue import NOTES

        scope = path.split("/", 1)[0] if "/" in path else None
        # a note at the root belongs to no partition: every partition's records may relate
        scopes = self.scopes() if scope is None else [scope] if scope in self.scopes() else []
        self._text_for_search(scopes)
        self._note_text_for_search()
        if embed_at_most is None or self.meaning_pending([*scopes, NOTES], embed_at_most) <= embed_at_most:
            self.index_meaning([*scopes, NOTES], wait=wait)
        return hybrid.related(self.store.reader(), str(self.store.path), path, limit, [*scopes, NOTES])

    def index_meaning(
        self,
        scopes: Iterable[str] | None = None,
        model: Any = None,
        *,
        limit: int | None = None,
        wait: bool = True,
    ) -> int:
        """Embed the passages of records and notes changed since they were last embedded
        (and all of them when the model changed); how many files settled. Cheap when
        nothing changed. `limit`: embed at most that many files per scope this
        call (a caller that must answer quickly, `vault_api`), leaving the rest queued; it
        never waits for another thread's embedding. `wait` False: when another thread is
        embedding the vault, return at once rather than wait for it (the record pane's
        Related line, which answers from what is embedded)."""
        from knowledge_desktop.engine.semantic.model import embedder
        from knowledge_desktop.engine.store.projections import semantic as semantic_projection
        from knowledge_desktop.engine.store.projections.semantic_queue import NOTES

        model = model if model is not None else embedder()
        wanted = list(scopes) if scopes is not None else [*self.scopes(), NOTES]
        conn = self.store.reader()
        if semantic_projection.model_of(conn) == semantic_projection.model_key(model) and not (
            self.meaning_pending(wanted, 0)
        ):
            return 0
        # A step at a time, the model working with nothing held: embedding a whole large
        # vault takes minutes (17 at 100k), and the window's watcher and writes need the vault
        # meanwhile. Each step reads its files' text from a snapshot, works out their vectors
        # outside, and takes the vault only to store them, for the files whose text is still
        # the one read (`semantic.store`); an edited file stays queued for a later step.
        # One embedding at a time (two would embed the same files); a caller with a `limit`
        # must answer quickly and never waits for another's.
        if not self._embedding.acquire(blocking=wait and limit is None):
            return 0
        try:
            size = EMBED_STEP if limit is None else limit
            settled = idle = 0
            made_by = semantic_projection.model_of(self.store.reader())
            if made_by != semantic_projection.model_key(model):
                with self._lock, self.store.write(bulk=True) as tx:
                    if made_by is None:
                        semantic_projection.adopt_model(tx, model)
                    else:
                        # Another model made the stored vectors: the first step drops them and
                        # queues everything in the transaction that stores its own, so a failed
                        # step leaves the old vectors whole (this rare step holds the vault).
                        settled = sum(semantic_projection.sync(tx, s, model, size) for s in wanted)
                        if limit is not None:
                            return settled
            while idle < STALE_STEPS:
                with self.store.read_snapshot() as snapshot:
                    steps = [semantic_projection.plan(snapshot.conn, s, size) for s in wanted]
                if not any(step.outcomes for step in steps):
                    break
                vectors = [semantic_projection.embed(model, step) for step in steps]
                with self._lock, self.store.write(bulk=True) as tx:
                    stored = sum(
                        semantic_projection.store(tx, s, v) for s, v in zip(steps, vectors, strict=True)
                    )
                settled += stored
                if limit is not None:
                    break
                idle = 0 if stored else idle + 1
            return settled
        finally:
            self._embedding.release()

    def index_search(self) -> None:
        """Everything a search reads, built now (`knowledge scan --embed`): the records'
        text, the notes' text, then every queued passage's vector, so that no first search,
        by words or by meaning, waits for any of it."""
        self.index_keywords()
        self.index_note_text()
        self.index_meaning()

    def meaning_pending(self, scopes: Iterable[str], at_most: int | None = None) -> int:
        """How many files of `scopes` wait to be (re)embedded (counted no further than one
        past `at_most`, when given)."""
        from knowledge_desktop.engine.store.projections import semantic_queue

        return semantic_queue.pending(self.store.reader(), scopes, at_most)

    def _text_for_search(self, scopes: list[str]) -> tuple[bool, int]:
        """Index what a search must see first: (lag, records whose text is still queued).

        Headless, a search indexes everything queued, as the spec's index
        behaviour asks. With text built in the background (the window), it
        indexes a short queue itself (waiting a moment for the vault, which
        another search indexing the same queue may hold), but never waits
        behind a long queue, nor behind a long holder of the vault (a scan).
        """
        queued = keyword_projection.pending(self.store.reader(), scopes)
        if not queued:
            return False, 0
        if not self.text_in_background:
            return self.index_keywords(scopes), 0
        if queued > INLINE_TEXT or not self._lock.acquire(timeout=INLINE_WAIT_S):
            return False, queued
        try:
            return self.index_keywords(scopes), 0
        finally:
            self._lock.release()

    def index_keywords(
        self,
        scopes: Iterable[str] | None = None,
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        chunk: int | None = None,
    ) -> bool:
        """Index the text of records whose content changed since they were last indexed.

        With `chunk` (the window passes `TEXT_CHUNK`) it works in transactions
        of that many records, releasing the vault in between, so a search or a
        live edit waits for one chunk at most; `progress("text", done, total)`
        follows it and `cancel` stops it between chunks (what is indexed
        stays). Without, it is one transaction: headless nobody waits, and one
        bulk transaction keeps its page cache (at 100k, chunks cost half as
        much time again). Returns True when some file changed again since the
        scan (its text waits for the next reconcile). Asked for every partition
        (no `scopes`), it indexes notes' text too (`index_note_text`), first.
        """
        lag = False
        if scopes is None:
            lag = self.index_note_text(progress=progress, cancel=cancel, chunk=chunk)
        wanted = list(scopes) if scopes is not None else self.scopes()
        total = keyword_projection.pending(self.store.reader(), wanted)
        if not total:
            return lag  # the usual case: nothing changed since the last search
        done = 0
        for scope in wanted:
            after = ""
            while True:
                if cancel is not None and cancel.is_set():
                    raise Cancelled
                with self._lock, self.store.write(bulk=True) as tx:
                    settled, scope_lag, last = keyword_projection.sync(
                        tx, self.root, scope, after=after, limit=chunk
                    )
                    if settled:
                        keyword_projection.bump(tx, [scope], utc_now_text())
                lag |= scope_lag
                done += settled
                if last != after and progress is not None:
                    progress("text", min(done, total), total)
                if chunk is None or last == after:
                    break  # all of the partition was looked at (one transaction, or past its end)
                after = last
        return lag

    def rebuild(self) -> ChangeSet:
        """Throw the projections away and rebuild them from the Markdown (durable state stays)."""
        with self._lock:
            self.store.rebuild_projections()
            self.reconciler = Reconciler(self.root, self.store)
            return self.reconcile()

    def lookup(
        self,
        query: str,
        f: inventory.RecordFilter | None = None,
        visible: Callable[[str], bool] | None = None,
        *,
        notes: bool = False,
    ) -> dict[str, Any]:
        """Exact lookup; `visible` limits the matches to the paths a reader may see, before
        ambiguity and name precedence are judged (`query/lookup.py`).

        `notes` (the CLI and the window): when no record matches, a note named so is
        found (`query/lookup_notes.py`, issue 25 §3), unless a filter only records have
        (kind, type, lifecycle) is set. The spec's lookup (extensions, MCP) leaves it off."""
        f = f or inventory.RecordFilter()
        if f.types is not None:
            f = replace(f, types=self.expand_types(f.types, f.scope))
        conn = self.store.reader()
        result = lookup_module.lookup(conn, query, f, visible)
        record_only = f.kind is not None or f.types is not None or f.lifecycle != "active"
        if result["status"] != "missing" or not notes or record_only or visible is not None:
            return result
        return lookup_notes_module.lookup_note(conn, query, scope=f.scope, tag=f.tag)

    def timeline(self, **options: Any) -> dict[str, Any]:
        """Dated records; `notes=True` adds dated notes (the CLI and the window, issue 25 §3)."""
        return timeline_module.timeline(self.store.reader(), **options)

    def chronicle_day(self, day: str, **options: Any) -> dict[str, Any]:
        return timeline_module.chronicle_day(self.store.reader(), day, **options)

    def chronicle_since(self, since: str, **options: Any) -> dict[str, Any]:
        return timeline_module.chronicle_since(self.store.reader(), since, **options)

    def last_seen(self, entity: str, **options: Any) -> dict[str, Any]:
        return timeline_module.last_seen(self.store.reader(), entity, **options)

    # -- the catalog pane's tree (engine/query/catalog_tree.py) ----------------------
    def catalog_tree(self, q: catalog_tree_module.CatalogQuery | None = None) -> dict[str, Any]:
        """Partition → kind → type counts plus invalid and unrecognized groups."""
        return catalog_tree_module.tree(self.store.reader(), q or catalog_tree_module.CatalogQuery())

    def catalog_branch(
        self,
        q: catalog_tree_module.CatalogQuery,
        branch: catalog_tree_module.Branch,
        offset: int = 0,
        limit: int = 200,
    ) -> dict[str, Any]:
        """One page of the files one catalog branch lists."""
        return catalog_tree_module.listing(self.store.reader(), q, branch, offset, limit)

    def catalog_locate(self, q: catalog_tree_module.CatalogQuery, path: str) -> dict[str, Any] | None:
        """The branch and row a file has in the catalog under `q`; None when hidden."""
        return catalog_tree_module.locate(self.store.reader(), q, path)

    def catalog_branches_of(
        self, q: catalog_tree_module.CatalogQuery, paths: list[str]
    ) -> list[dict[str, Any]]:
        """The catalog branches that list these files now."""
        return catalog_tree_module.branches_of(self.store.reader(), q, paths)

    def catalog_tags(self) -> list[str]:
        """Every tag used by some record, for the catalog's tag facet."""
        return catalog_tree_module.tags(self.store.reader())

    # -- the record pane's extras ---------------------------------------------------
    def record_context(self, path: str) -> dict[str, Any]:
        """What a record view shows beside `show()` (see `query.record_context`)."""
        return record_context_module.record_context(self.store.reader(), path, self.reconciler.ontologies())

    def suggest(self, text: str, limit: int = 20) -> dict[str, Any]:
        """Records whose title or alias starts with or contains `text` (the quick switcher's list)."""
        from knowledge_desktop.engine.query import suggest as suggest_module

        return suggest_module.suggest(self.store.reader(), text, limit)

    def backlinks(self, id_or_path: str, *, mentions: int = 30) -> dict[str, Any]:
        """What points at one record: links, relationships, typed references, unlinked mentions.

        Mentions come from phrase searches of the title and each alias in the
        record's own partition (links never cross partitions, so neither do
        link suggestions); a name the search cannot take is skipped.
        """
        from knowledge_desktop.engine.query import backlinks as backlinks_module
        from knowledge_desktop.engine.query.grep_query import GrepQuery

        rows = self.find(id_or_path)
        if not rows:
            raise QueryError(f"no record or file {id_or_path!r} in this vault")
        if len(rows) > 1:
            paths = ", ".join(r["path"] for r in rows)
            raise QueryError(f"id {id_or_path!r} is used by several files ({paths}); use a path")
        row = rows[0]
        scope = row["scope"]

        def search(name: str) -> list[dict[str, Any]]:
            try:
                found = self.grep(GrepQuery(query=name, mode="phrase", limit=min(50, mentions + 10)), scope)
            except QueryError:
                return []
            hits: list[dict[str, Any]] = found["hits"]
            return hits

        confirm = self._mention_matcher(row) if scope else None
        result = backlinks_module.backlinks(
            self.store.reader(), self.root, row, search if scope else None, mentions, confirm
        )
        activation = self.reconciler.ontologies().get(scope) if scope else None
        ontology = activation.ontology if activation is not None else None
        for group in result["relationships"]:
            definition = ontology.definitions.get(group["label"]) if ontology is not None else None
            group["name"] = definition.label if definition is not None and definition.label else None
        return result

    def _mention_matcher(self, row: dict[str, Any]) -> Callable[[str], list[tuple[str, int]]] | None:
        """For a person or company page, what finds it named in a file's indexed text: the
        mention matcher `documents.get` and the entities filter of `search` use
        (`query/mentions.py`: exact, case-aware, word-bounded), each name with its file line.
        None for any other record, whose unlinked mentions stay the phrase search's."""
        from knowledge_desktop.engine.query import mentions as mentions_module
        from knowledge_desktop.engine.store.schema import keyword_tables

        if row.get("kind") != "page" or row.get("type") not in mentions_module.MENTIONABLE or not row["id"]:
            return None
        names = mentions_module.names_of({"title": row.get("title"), "aliases": row.get("aliases")})
        matcher = mentions_module.Names([(str(row["id"]), str(row["path"]), names)])
        fts, rows = keyword_tables(str(row["scope"]))[:2]
        conn = self.store.reader()

        def confirm(path: str) -> list[tuple[str, int]]:
            found = conn.execute(
                f"SELECT r.body_line, f.body FROM {rows} r JOIN {fts} f ON f.rowid = r.rowid WHERE r.path=?",
                (path,),
            ).fetchone()
            if found is None:
                return []
            first = int(found[0] or 1)
            return [(m.name, first + m.line - 1) for m in matcher.find(str(found[1] or ""))]

        return confirm

    def record_types(self) -> list[str]:
        """Every record type in the vault (page types, claim kinds, relationship labels), sorted."""
        return [
            t
            for (t,) in self.store.reader().execute(
                "SELECT DISTINCT type FROM catalog WHERE status='record' AND type IS NOT NULL ORDER BY type"
            )
        ]

    # -- vault-level findings ----------------------------------------------------
    def vault_diagnostics(self) -> list[dg.Diagnostic]:
        """Standing findings about the vault itself: interrupted or conflicting writes, and
        what happened to its state (`vault_state.state_findings`)."""
        found = write_findings(self.publisher)
        found.extend(state_findings(self.store, self.state_dir, self.state_outside))
        return found

    def info(self) -> dict[str, Any]:
        return {
            "root": str(self.root),
            "vaultId": self.vault_id,
            "stateDir": str(self.state_dir),
            "readOnly": self.read_only,
            "stateWritable": self.detached is None,
        }
