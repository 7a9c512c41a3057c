"""The one way data enters the projections.

A full scan, a watcher event and a query's freshness check all call
`Reconciler.run` with candidate paths (None meaning "everything"). It stats
them, skips files whose (size, mtime, inode) are unchanged, reads and hashes
the rest, parses only those whose hash changed (in worker processes when
there are many), recomposes the ontology of partitions whose manifests
changed, derives what depends on the changes, and writes every projection in
one transaction. Reopening an unchanged vault therefore parses nothing.

A run of more than `CHUNK` files (a cold scan) does that a chunk at a time, one
transaction each, so its memory follows the graph rather than the vault's bytes;
between two chunks the state is that of a vault whose other files are not read
yet, which the next run completes (docs/decisions.md, the search text section).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from knowledge_desktop.engine.changes import ChangeSet, Source
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.errors import Cancelled
from knowledge_desktop.engine.fs.walk import (
    FileEntry,
    classify_path,
    is_utf8,
    shown_path,
    stat_one,
    walk,
    walk_below,
)
from knowledge_desktop.engine.graph import snapshot
from knowledge_desktop.engine.graph.node import DetailSource, RecordNode
from knowledge_desktop.engine.graph.resolve import release_caches
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.heap import full_collections_paused, return_freed_memory
from knowledge_desktop.engine.ontology.compose import (
    Activation,
)
from knowledge_desktop.engine.reading import (
    ReadResult,
    activate_partition,
    file_rows,
    probe_evidence,
    read_batch,
    read_batch_encoded,
    settle,
)
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.store import codec, freshness, guards
from knowledge_desktop.engine.store.db import Store, Tx
from knowledge_desktop.engine.store.projections import catalog as catalog_projection
from knowledge_desktop.engine.store.projections import diagnostics as diagnostics_projection
from knowledge_desktop.engine.store.projections import facts as facts_projection
from knowledge_desktop.engine.store.projections import keyword as keyword_projection
from knowledge_desktop.engine.store.projections import keyword_text
from knowledge_desktop.engine.store.projections import links as links_projection
from knowledge_desktop.engine.store.projections import note_text as note_text_projection
from knowledge_desktop.engine.store.projections import ontology as ontology_projection
from knowledge_desktop.engine.store.projections import semantic_queue as semantic_projection
from knowledge_desktop.engine.store.projections import temporal as temporal_projection
from knowledge_desktop.engine.store.projections.base import Projection, Update
from knowledge_desktop.engine.workers import WorkerPool

if TYPE_CHECKING:
    from concurrent.futures import Executor

PARALLEL_THRESHOLD = 1500  # below this, worker start-up (~0.7 s) costs more than it saves
OFFLOAD_MIN = 16  # fewer files parse faster in this thread than through a warm worker pool
BATCH = 64
CHUNK = 20_000
"""Files read, parsed and written per transaction: a larger run is written a chunk at a
time, so it holds no more than two chunks' parses, whatever the vault's size."""


Progress = Callable[[str, int, int], None]
"""`progress(stage, done, total)`: "reading" counts files read; "indexing" has no count (0, 0);
"text" (`Vault.index_keywords`) counts records whose search text is indexed."""


@dataclass(slots=True)
class _Known:
    """What the files table says of one file; one per file for as long as the vault is open."""

    stat: int
    """(size, mtime, inode) packed by `_stat_token`: a third of the tuple's size."""
    sha256: str
    entry_kind: str
    scope: str | None


class Reconciler:
    def __init__(self, root: Path, store: Store) -> None:
        self.root = root
        self.store = store
        self._graph: VaultGraph | None = None
        self._ontologies: dict[str, Activation] | None = None
        self._known_files: dict[str, _Known] | None = None
        self._scope_set: set[str] | None = None
        """The partitions some known file is in (`_scopes`), kept between runs: at 100k
        files, working it out again cost every single-file reconcile 6 ms."""
        self._known_lock = threading.Lock()
        self._guards_version: int | None = None  # what the graph follows (`store/guards.py`)
        self._synced: int | None = None
        """`Store.foreign_commits()` when the graph last matched the store: once it moved,
        another process may have rewritten parses the graph holds (`_moved`)."""
        self._graph_lock = threading.Lock()
        """Loading the graph takes seconds and may run beside a reconcile (`Vault.warm_up`
        holds no vault lock): whoever comes second waits for the one load."""
        self.workers = WorkerPool(max_workers=min(os.cpu_count() or 1, 8))
        self.beside: Callable[[Executor], None] | None = None
        """Given the parse workers' pool once a run's last files are queued on it, to queue
        work of its own behind them (`VaultHistory.baseline_beside`): that work then runs
        while this process derives and writes, which leaves the workers idle. Only a run
        whose files are read in workers calls it, once."""
        self.offload_from: int | None = None
        """Set by an interactive host (the window): batches of at least this many
        files are parsed in worker processes, which then stay warm for a while,
        so the host's own thread keeps the interpreter lock. None: only scans of
        `PARALLEL_THRESHOLD` files or more use workers, and they stop after."""

    @property
    def _known(self) -> dict[str, _Known]:
        """What each file looked like when last read; loaded on first use, since at
        100k files it takes most of a second and opening a vault should not wait."""
        known = self._known_files
        if known is None:
            with self._known_lock:
                known = self._known_files
                if known is None:
                    known = {}
                    rows = self.store.reader().execute(
                        "SELECT path, size, mtime_ns, inode, sha256, entry_kind, scope FROM files"
                    )
                    for path, size, mtime, inode, sha, kind, scope in rows:
                        stat = _stat_token((size, mtime, inode))
                        known[path] = _Known(stat, sha, sys.intern(kind), _intern(scope))
                    self._known_files = known
        return known

    def indexed(self) -> bool:
        """Whether this vault's files were read before (its projections describe it)."""
        if self._known_files is not None:
            return bool(self._known_files)
        return self.store.reader().execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None

    # -- public --------------------------------------------------------------
    def run(
        self,
        paths: Iterable[str] | None = None,
        source: Source = "scan",
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> ChangeSet:
        """Bring the projections in line with `paths` (None: the whole vault).

        `cancel` is honoured only while files are read and the graph loads —
        before anything in memory or on disk changes — so a cancelled run
        leaves everything as it was (it raises `Cancelled`), but for the chunks
        a run of more than `CHUNK` files wrote before: those stay, a consistent
        state that the next run completes.
        """
        with full_collections_paused():
            return self._run(paths, source, progress, cancel)

    def _run(
        self,
        paths: Iterable[str] | None,
        source: Source,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> ChangeSet:
        started = time.perf_counter()
        change = ChangeSet(source)
        guard_nodes, guard_version = self._guard_nodes()
        walked = walk(self.root) if paths is None else None
        digest = freshness.digest(walked) if walked is not None else None
        if guard_version is None and digest is not None and freshness.matches(self.store, digest):
            change.stat_checked = len(walked or ())
            if self._scope_set is None and walked is not None:
                # The files are those the store describes: their partitions are known
                # without loading every file's row (`_known`), which a first read asking
                # for the ontologies would otherwise do (0.4 s of a 10k server's first grep).
                self._scope_set = {e.scope for e in walked if e.scope}
            change.elapsed_ms = (time.perf_counter() - started) * 1000
            return change
        entries, gone = self._candidates(paths, walked)
        change.stat_checked = len(entries) + len(gone)
        stale = sorted((e for e in entries.values() if self._stale(e)), key=_read_order)
        step = _Step(change, guard_nodes, guard_version, gone)
        step.whole = len(stale) <= CHUNK
        step.bulk = len(stale) + len(gone) >= BULK_ROWS
        step.new_scopes = {e.scope for e in entries.values() if e.scope} - self._scopes()
        chunks = self._read(stale, progress, cancel)
        try:
            for results, last in chunks:
                if digest is not None and any(
                    r.entry.stat_key != entries[r.entry.path].stat_key for r in results
                ):
                    # A file kept with another stat than the walk's (unreadable, or changing
                    # while read) must be read again next time: no digest may vouch for it.
                    digest = None
                self._apply(step, results, digest if last else None, progress if last else None, cancel)
                if not last:
                    self.store.checkpoint()  # else the log grows by every chunk
        finally:
            chunks.close()  # a failed chunk: the workers' queued batches are dropped
        step.describe()
        if step.written + len(gone) >= BULK_ROWS:
            self._release_memory()  # the parse JSON is written and let go
        change.elapsed_ms = (time.perf_counter() - started) * 1000
        return change

    def _apply(
        self,
        step: _Step,
        results: list[ReadResult],
        digest: str | None,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> None:
        """Bring the projections in line with one chunk of read files, in one transaction:
        a reconcile of those files (and, in the first chunk, of the files gone, the guards
        and the new partitions). Each chunk's parses are written and let go before the next
        is read, so a cold scan's memory follows the graph, not the vault's bytes; a kill
        between chunks leaves the projections of a vault whose other files are not read yet,
        which the next reconcile reads (`tests/test_chunked_scan.py`). `digest`: the full
        walk's, given to the last chunk only."""
        change = step.change
        change.read += len(results)
        first, step.first = step.first, False
        guard_nodes = step.guard_nodes if first else {}
        guard_version = step.guard_version if first else None
        gone = step.gone if first else []
        # Files whose bytes really changed, appeared, or went away.
        parsed: dict[str, RecordNode | None] = {}
        manifest_scopes: set[str] = set()
        content_rows: list[ReadResult] = []
        stat_rows: list[ReadResult] = []
        for result in results:
            known = self._known.get(result.entry.path)
            if known is not None and known.sha256 == result.sha256:
                stat_rows.append(result)  # touched, not changed: no parse, no derive
                continue
            content_rows.append(result)
            if result.entry.kind == "manifest":
                manifest_scopes.add(result.entry.scope or "")
            elif result.node is not None:
                parsed[result.entry.path] = result.node
        del results
        change.parsed += len(parsed)
        step.written += len(content_rows)
        requeue = [(n.scope, p, "markdown") for p, n in guard_nodes.items() if p not in parsed]
        parsed = {**guard_nodes, **parsed}
        for path in gone:
            known = self._known[path]
            if known.entry_kind == "manifest":
                manifest_scopes.add(known.scope or "")
            else:
                parsed[path] = None
        if first:
            manifest_scopes |= step.new_scopes
        if stat_rows:
            self._write_stats(stat_rows)
        if not parsed and not manifest_scopes and not content_rows and not gone and guard_version is None:
            if digest is not None:
                freshness.remember(self.store, digest)
            return
        if progress is not None:
            progress("indexing", 0, 0)
        # The load, the details read back and the rows derived from them: one store.
        with self.store.read_snapshot() as store_snapshot:
            version = store_snapshot.version
            graph = self.graph()
            if cancel is not None and cancel.is_set():
                raise Cancelled
            if self._synced != version:
                parsed = {**self._moved(graph), **parsed}  # what this run read itself wins
            before_ids = {p: graph.nodes[p].id for p in parsed if p in graph.nodes}
            activations = {s: activate_partition(self.root, s) for s in manifest_scopes}
            current = self.ontologies()
            # Against what the projections were derived with, not `current`: loaded
            # lazily, that may already have read the changed manifest.
            derived_with = ontology_projection.fingerprints(self.store.reader()) if activations else {}
            changed_scopes = [
                s
                for s, a in activations.items()
                if s not in derived_with or derived_with[s] != ontology_projection.fingerprint(a)
            ]
            try:
                current.update(activations)
                recomputed = graph.apply(parsed, changed_scopes) if (parsed or changed_scopes) else set()
                held = self._guards_version if guard_version is None else guard_version
                change.touched |= self._write(
                    content_rows,
                    gone,
                    recomputed,
                    activations,
                    digest,
                    requeue,
                    held,
                    whole=step.whole,
                    bulk=step.bulk,
                )
                self._guards_version = held
                self._synced = version
            except BaseException:
                # The graph may be ahead of the store now: read both afresh next time.
                self._graph = None
                self._ontologies = None
                self._synced = None
                raise
        graph.release()  # every parse is in the cache and every row written now
        self._describe(step, parsed, before_ids, recomputed, changed_scopes)

    def ontologies(self) -> dict[str, Activation]:
        """Each partition's activation; cheap (manifests only), so readers use this
        rather than loading the whole graph."""
        if self._ontologies is None:
            self._ontologies = {s: activate_partition(self.root, s) for s in self._scopes()}
        return self._ontologies

    def _guard_nodes(self) -> tuple[dict[str, RecordNode], int | None]:
        """Records whose guard changed, fresh from the parse cache, and the version to follow."""
        reader = self.store.reader()
        if not guards.moved(reader, self._guards_version, loaded=self._graph is not None):
            return {}, None
        paths, on_disk = guards.changed_paths(self.graph(), reader, self._guards_version)  # after a load
        return {node.path: node for node in self._stored_nodes(paths)}, on_disk

    def graph(self) -> VaultGraph:
        """The in-memory graph, restored from its snapshot (else derived from the
        parse cache) on first need; one load, whichever thread asks first."""
        graph = self._graph
        if graph is None:
            with self._graph_lock:
                graph = self._graph
                if graph is None:
                    with full_collections_paused():
                        graph = self._graph = self._load_graph()
        return graph

    def _load_graph(self) -> VaultGraph:
        graph = VaultGraph()
        graph.probe = partial(probe_evidence, self.root)
        graph.attachments.root = self.root
        graph.details = DetailSource(self._stored_nodes)
        graph.ontologies = self.ontologies()  # shared: run() updates both at once
        # One read transaction: the files table's hashes and the snapshot rows (or parses)
        # of one commit, whatever another process writes meanwhile.
        with self.store.read_snapshot() as store_snapshot:
            self._guards_version = guards.load(graph, store_snapshot.conn)
            restored = self._restore_graph(graph)
            if not restored:
                graph = self._derive_graph(graph)
        self._synced = store_snapshot.version
        release_caches()
        if len(graph.nodes) >= BULK_ROWS:  # (a small or empty graph frees little: no pause for it)
            return_freed_memory(full=not restored)
        return graph

    def _restore_graph(self, graph: VaultGraph) -> bool:
        """Fill `graph` from the snapshot the last write stored; False (graph untouched)
        when the snapshot does not cover exactly the Markdown files of the parse cache.

        Each node takes its hash from the files table as read in the load's transaction,
        not from `_known` (read earlier, and kept by this process): another process may
        have rewritten a file's parse and its snapshot row since, and a node pairing the
        old hash with the new state could never read its detail back."""
        reader = self.store.reader()
        known = self._known
        shared = {p: p for p in known}  # one path string for the graph and `_known`
        hashes: dict[str, str] = dict(
            reader.execute("SELECT path, sha256 FROM files WHERE entry_kind='markdown'")
        )
        entries = []
        for path, state in reader.execute("SELECT path, state FROM graph_snapshot_v1"):
            sha = hashes.pop(path, None)
            if sha is None:
                return False
            held = known.get(path)
            if held is not None and held.sha256 == sha:
                sha = held.sha256  # and one sha string
            entries.append(snapshot.decode(shared.get(path, path), sha, state))
        if hashes:
            return False
        graph.restore(entries)
        return True

    def _derive_graph(self, graph: VaultGraph) -> VaultGraph:
        """Derive the graph from the parse cache: when no snapshot matches it."""
        files = self.store.reader().execute(
            "SELECT path, scope, sha256, size, node FROM files WHERE entry_kind='markdown'"
        )
        nodes: dict[str, RecordNode | None] = {}
        for path, scope, stored_sha, size, encoded in files:
            known = self._known.pop(path, None)
            sha = stored_sha
            if known is not None:
                self._known[path] = known  # re-keyed: one path string for both maps
                if known.sha256 == stored_sha:
                    sha = known.sha256  # and one sha string
            node = RecordNode(codec.decode(path, scope, sha, size, encoded))
            node.source = graph.details
            node.release_detail()  # read back a chunk at a time while deriving
            nodes[path] = node
        graph.apply(nodes, (), stream=True)
        return graph

    def _moved(self, graph: VaultGraph) -> dict[str, RecordNode | None]:
        """Markdown files another process reconciled since the graph last matched the
        store, as the parse cache holds them now (None: the file is gone). They are applied
        like any change, so the file and what depends on it are derived again from the
        parse its rows came from; left as they were, reading a detail back would find
        another hash than the node's (`StaleDetail`)."""
        held: dict[str, str] = dict(
            self.store.reader().execute("SELECT path, sha256 FROM files WHERE entry_kind='markdown'")
        )
        moved: dict[str, RecordNode | None] = {p: None for p in graph.nodes if p not in held}
        changed = [p for p, sha in held.items() if p not in graph.nodes or graph.nodes[p].sha256 != sha]
        moved.update((node.path, node) for node in self._stored_nodes(changed))
        return moved

    def _stored_nodes(self, paths: list[str]) -> Iterator[RecordNode]:
        """Nodes for `paths` as the parse cache holds them (what `DetailSource` reads back)."""
        reader = self.store.reader()
        for start in range(0, len(paths), 500):
            chunk = paths[start : start + 500]
            rows = reader.execute(
                "SELECT path, scope, sha256, size, node FROM files"
                f" WHERE path IN ({','.join('?' * len(chunk))}) AND node IS NOT NULL",
                chunk,
            )
            for path, scope, sha, size, encoded in rows:
                yield RecordNode(codec.decode(path, scope, sha, size, encoded))

    def _release_memory(self) -> None:
        """After a bulk write (whose page cache `Store.write` already handed
        back): drop derivation's caches and return freed heap."""
        release_caches()
        return_freed_memory()

    # -- steps ---------------------------------------------------------------
    def _scopes(self) -> set[str]:
        if self._scope_set is None:
            self._scope_set = {k.scope for k in self._known.values() if k.scope}
        return self._scope_set

    def _candidates(
        self, paths: Iterable[str] | None, walked: list[FileEntry] | None = None
    ) -> tuple[dict[str, FileEntry], list[str]]:
        """The entries to compare and the known paths gone; `walked`: the whole vault's."""
        found: dict[str, FileEntry] = {}
        if paths is None:
            found = {e.path: e for e in (walked if walked is not None else walk(self.root))}
            return found, [p for p in self._known if p not in found]
        gone: list[str] = []
        for rel in {p.strip("/") for p in paths}:
            if not rel:
                continue
            full = self.root / rel
            if full.is_dir() and not full.is_symlink() and is_utf8(rel):
                below = walk_below(full)
                for entry in below:
                    sub_path = f"{rel}/{entry.path}" if entry.path else rel
                    scope, kind = _scope_kind(sub_path)
                    found[sub_path] = entry._replace(path=sub_path, scope=scope, kind=kind)
                prefix = rel + "/"
                gone.extend(
                    p
                    for p in self._known
                    if p.startswith(prefix) and p not in found and not (self.root / p).exists()
                )
                if rel in self._known and rel not in found:
                    gone.append(rel)  # it stood for the folder while it could not be listed
                continue
            single = stat_one(self.root, rel)
            if single is not None:
                found[single.path] = single
            else:
                shown = shown_path(rel)
                if shown in self._known:
                    gone.append(shown)
                prefix = shown + "/"
                gone.extend(p for p in self._known if p.startswith(prefix))
        return found, sorted(set(gone) - set(found))

    def _stale(self, entry: FileEntry) -> bool:
        known = self._known.get(entry.path)
        return known is None or known.stat != _stat_token(entry.stat_key)

    def _read(
        self, entries: list[FileEntry], progress: Progress | None, cancel: threading.Event | None
    ) -> Generator[tuple[list[ReadResult], bool], None, None]:
        """The read and parsed files, `CHUNK` at a time (at least one chunk, maybe empty),
        each with whether it is the last (which records the walk's digest).
        With workers, the next chunk is handed to them before this one is yielded, so they
        parse it while the caller writes this one; no more than two chunks are ever held."""
        jobs = [(e, self._known[e.path].sha256 if e.path in self._known else None) for e in entries]
        parts = [jobs[i : i + CHUNK] for i in range(0, len(jobs), CHUNK)] or [[]]
        done = 0

        def step() -> None:
            if cancel is not None and cancel.is_set():
                raise Cancelled
            if progress is not None:
                progress("reading", done, len(jobs))

        if not self._offload(len(jobs)):
            for part in parts:
                out: list[ReadResult] = []
                for start in range(0, len(part), BATCH):
                    step()
                    batch = part[start : start + BATCH]
                    out.extend(settle(result) for result in read_batch(str(self.root), batch))
                    done += len(batch)
                yield out, part is parts[-1]
            return
        pool = self.workers.acquire()
        size = max(1, min(BATCH, -(-len(jobs) // (2 * self.workers.max_workers))))

        def submit(part: list[tuple[FileEntry, str | None]]) -> Iterator[list[ReadResult]]:
            batches = [part[i : i + size] for i in range(0, len(part), size)]
            queued = pool.map(read_batch_encoded, [str(self.root)] * len(batches), batches)
            if part is parts[-1] and self.beside is not None:
                self.beside(pool)  # behind the last batches: run while this process writes
            return queued

        try:
            ahead = submit(parts[0])
            for number in range(len(parts)):
                running = ahead
                if number + 1 < len(parts):
                    ahead = submit(parts[number + 1])  # parsed while this chunk is written
                out = []
                for chunk in running:
                    for result in chunk:
                        if result.encoded is not None:
                            e = result.entry
                            result.parsed = codec.decode(
                                e.path, e.scope, result.sha256, e.size, result.encoded
                            )
                        out.append(settle(result))
                    done += len(chunk)
                    step()
                yield out, number + 1 == len(parts)
        except BaseException:
            self.workers.release(broken=True)  # queued batches are dropped, not run
            raise
        if self.offload_from is None:
            self.workers.close()  # a one-off scan (the CLI): nothing more will follow
        else:
            self.workers.release()

    def _offload(self, files: int) -> bool:
        """Whether to read `files` files in worker processes rather than this thread."""
        if files >= PARALLEL_THRESHOLD:
            return True
        if self.offload_from is None or files < OFFLOAD_MIN:
            return False
        return self.workers.warm or files >= self.offload_from

    def _write_stats(self, rows: list[ReadResult]) -> None:
        with self.store.write() as tx:
            freshness.forget(tx)
            tx.executemany(
                "UPDATE files SET size=?, mtime_ns=?, inode=? WHERE path=?",
                [(r.entry.size, r.entry.mtime_ns, r.entry.inode, r.entry.path) for r in rows],
            )
        for r in rows:
            self._known[r.entry.path].stat = _stat_token(r.entry.stat_key)

    def _write(
        self,
        rows: list[ReadResult],
        gone: list[str],
        recomputed: set[str],
        activations: dict[str, Activation],
        walked: str | None,
        requeue: list[tuple[str | None, str, str]],
        guard_version: int | None,
        *,
        whole: bool = True,
        bulk: bool = False,
    ) -> set[Flag]:
        """The parse cache, then every projection, in one transaction; the flags of the projections
        whose rows changed. `walked`: the digest of the full walk these rows bring the `files`
        table in line with (None after a partial one). `requeue`: unchanged files whose guard
        changed; `guard_version`: the guards followed."""
        update = Update(
            self.graph(),
            sorted(recomputed),
            [(r.entry.scope, r.entry.path, str(r.entry.kind)) for r in rows] + requeue,
            gone,
            activations,
        )
        touched: set[Flag] = set()  # a bulk write reports every projection touched
        bulk = bulk or len(rows) + len(gone) >= BULK_ROWS or len(recomputed) >= BULK_ROWS
        with self.store.write(bulk=bulk, chunk=not whole) as tx:
            freshness.forget(tx)
            foreign = bulk or freshness.indexed_elsewhere(tx, [(r.entry.path, r.sha256) for r in rows])
            tx.executemany(
                "INSERT OR REPLACE INTO files(path, scope, entry_kind, size, mtime_ns, inode,"
                " sha256, node) VALUES (?,?,?,?,?,?,?,?)",
                file_rows(rows),
            )
            tx.executemany("DELETE FROM files WHERE path=?", [(p,) for p in gone])
            # A bulk write is cheaper into bare tables with the indexes built after.
            # Not for one chunk of many: the next would build them again over more rows.
            dropped = _drop_indexes(tx) if whole and len(recomputed) >= BULK_ROWS else []
            for projection in PROJECTIONS:
                if projection.index(tx, update) or foreign:  # (rows of another process: new here)
                    touched.add(projection.flag)
            _write_snapshot(tx, update.graph, update.paths)
            for sql in dropped:
                tx.execute(sql)
            if bulk:
                texts = {r.entry.path: r.text for r in rows if r.text is not None}
                for r in rows:
                    r.text = None  # held once, by `texts`, and let go as each is written
                _index_text(tx, self.root, update.graph, texts)
            if walked is not None:
                freshness.record(tx, walked)
            guards.record_reflected(tx, guard_version)
        for result in rows:
            e = result.entry
            sha = result.sha256
            if result.node is not None and result.node.sha256 == sha:
                sha = result.node.sha256  # one string for both
            self._known[e.path] = _Known(_stat_token(e.stat_key), sha, e.kind, _intern(e.scope))
        for path in gone:
            self._known.pop(path, None)
        if gone:
            self._scope_set = None  # a partition may have lost its last file
        elif self._scope_set is not None:
            self._scope_set.update(r.entry.scope for r in rows if r.entry.scope)
        return touched

    def _describe(
        self,
        step: _Step,
        parsed: dict[str, RecordNode | None],
        before_ids: dict[str, str | None],
        recomputed: set[str],
        changed_scopes: list[str],
    ) -> None:
        """Add what one chunk changed to the run's `step`."""
        graph = self.graph()
        step.paths.update(parsed)
        step.affected.update(recomputed)
        step.ontology_changed.update(changed_scopes)
        added: set[str] = set()
        removed: set[str] = set()
        for path in parsed:
            old = before_ids.get(path)
            node = graph.nodes.get(path)
            new = node.id if node else None
            if old != new:
                if old:
                    removed.add(old)
                if new:
                    added.add(new)
        # An id moved between files (rename) is a change, not a removal and an addition.
        still = {graph.nodes[p].id for p in recomputed if p in graph.nodes}
        moved = removed & still
        removed -= moved
        added -= moved
        changed = {graph.nodes[p].id for p in recomputed if p in graph.nodes} - added
        step.added |= added
        step.removed |= removed - added
        step.changed |= {i for i in changed | moved if i}


@dataclass(slots=True)
class _Step:
    """One run's inputs that only its first chunk applies, and what its chunks changed."""

    change: ChangeSet
    guard_nodes: dict[str, RecordNode]
    guard_version: int | None
    gone: list[str]
    new_scopes: set[str] = field(default_factory=set)
    whole: bool = True
    """The run is one chunk."""
    bulk: bool = False
    """The run reads `BULK_ROWS` files or more (each chunk indexes its text)."""
    first: bool = True
    written: int = 0
    """Files whose bytes changed, of every chunk so far."""
    paths: set[str] = field(default_factory=set)
    affected: set[str] = field(default_factory=set)
    ontology_changed: set[str] = field(default_factory=set)
    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    changed: set[str] = field(default_factory=set)

    def describe(self) -> None:
        """The `ChangeSet` of every chunk together; an id one chunk removed and a
        later one added moved between files: a change."""
        change = self.change
        moved = self.added & self.removed
        change.paths = sorted(self.paths)
        change.affected_paths = sorted(self.affected)
        change.ontology_changed = sorted(self.ontology_changed)
        change.added = sorted(self.added - moved)
        change.removed = sorted(self.removed - moved)
        change.changed = sorted(self.changed | moved)


PROJECTIONS: tuple[Projection, ...] = (
    keyword_projection,
    catalog_projection,
    note_text_projection,  # after the catalog: it reads which changed files are notes
    links_projection,
    diagnostics_projection,
    temporal_projection,
    ontology_projection,
    facts_projection,
    semantic_projection,
)
"""Every projection reconcile writes, in this order, each through `Projection.index`."""

BULK_ROWS = 3000
TEXT_CACHE_KIB = -16384
"""The page cache (16 MiB) while a bulk write indexes text (`_index_text`)."""
_BULK_TABLES = (
    "catalog",
    "catalog_names",
    "links",
    "refs",
    "evidence",
    "diagnostics",
    "temporal_v1",
    "associations_v1",
)


def _write_snapshot(tx: Tx, graph: VaultGraph, paths: list[str]) -> None:
    """Store what the graph keeps of each recomputed file (`graph.snapshot`)."""
    tx.executemany(
        "DELETE FROM graph_snapshot_v1 WHERE path=?", ((p,) for p in paths if p not in graph.nodes)
    )
    tx.executemany(
        "INSERT OR REPLACE INTO graph_snapshot_v1(path, state) VALUES (?, ?)",
        (
            (p, snapshot.encode(graph.nodes[p], graph.derived[p], graph.guarded.get(p)))
            for p in paths
            if p in graph.nodes and p in graph.derived
        ),
    )


def _index_text(
    tx: Tx, root: Path, graph: VaultGraph, texts: dict[str, keyword_text.RecordText] | None = None
) -> None:
    """A bulk write indexes the search text it queued, in its own transaction, so the
    first search after a cold scan has nothing left to index (issue 26). Each record's
    text comes as the worker that read it worked it out (`texts`: packed body, terms,
    dates; a third of the body's size), else from the file read again; the other values
    come from the graph's nodes, whose details are still held. A file that changed since stays queued (lag),
    as with `keyword.sync` run by a search. Small writes leave the text queued for the
    next search, which indexes a few files in milliseconds."""
    # The graph holds every detail until this write ends: a smaller page cache for the
    # text (SQLite spills what is over to the log) kept 10k records' peak 35 MiB lower.
    tx.execute(f"PRAGMA cache_size={TEXT_CACHE_KIB}")
    scopes = [s for (s,) in tx.execute("SELECT DISTINCT scope FROM keyword_pending_v1 ORDER BY scope")]
    for scope in scopes:
        keyword_projection.sync(tx, root, scope, nodes=graph.nodes, texts=texts)
    keyword_projection.bump(tx, scopes, utc_now_text())
    note_text_projection.sync(tx, root)


def _drop_indexes(tx: Tx) -> list[str]:
    found = tx.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL"
        f" AND tbl_name IN ({','.join('?' * len(_BULK_TABLES))})",
        _BULK_TABLES,
    ).fetchall()
    for name, _ in found:
        tx.execute(f"DROP INDEX {name}")
    return [sql for _, sql in found]


_LAYERS = {"claims": 1, "relationships": 2}


def _read_order(entry: FileEntry) -> tuple[bool, int]:
    """Manifests first: the first chunk activates the ontologies the records derive against.
    Then pages, claims, relationships, by the folders of the vault's layout: a claim names
    pages and a relationship joins records, so a run read in chunks finds most targets
    already read, rather than re-deriving every earlier record whose link a later chunk
    answers (a 10k vault in four chunks derived 19,460 times before this order)."""
    parts = entry.path.split("/")
    layer = _LAYERS.get(parts[1], 0) if len(parts) > 2 else 0
    return entry.kind != "manifest", layer


def _scope_kind(path: str) -> tuple[str | None, Literal["markdown", "manifest"]]:
    where = classify_path(path)
    return where if where is not None else (path.split("/", 1)[0], "markdown")


def _stat_token(stat: tuple[int, int, int]) -> int:
    """(size, mtime_ns, inode) as one int, losslessly (size and inode are below 2**64)."""
    size, mtime_ns, inode = stat
    return (mtime_ns << 128) | (inode << 64) | size


def _intern(text: str | None) -> str | None:
    return sys.intern(text) if text is not None else None
