"""`VaultGraph`: the in-memory graph of a vault, and the incremental step over it.

`apply` replaces the nodes of changed files, works out from the keys they
provide which records must be derived again, derives them (`rules.derive`)
and settles eligibility over everything that depends on them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from knowledge_desktop.engine.graph import eligibility, rules
from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.guards import outranks
from knowledge_desktop.engine.graph.indexes import Index, Staged, stage
from knowledge_desktop.engine.graph.keys import Key, file_key, key_scope
from knowledge_desktop.engine.graph.node import DetailSource, RecordNode
from knowledge_desktop.engine.graph.resolve import Resolver
from knowledge_desktop.engine.records.parse import ParsedFile

DERIVE_CHUNK = 500
"""Nodes whose detail is read back from the parse cache in one query."""


class VaultGraph(Resolver):
    """Every candidate file of an open vault with what it means among the others.

    Adds to the resolver's lookups the derived state of each file and the
    reverse indexes that make a change cheap: who watched which key, and who
    depends on which id.
    """

    def __init__(self) -> None:
        super().__init__()
        self.derived: dict[str, Derived] = {}
        self.watchers: Index[tuple[str, str]] = Index()
        """(key kind, scope) -> value -> files whose derivation looked at the key."""
        self.dependents: Index[str] = Index()
        """scope -> id -> files whose eligibility depends on it."""
        self.details: DetailSource | None = None
        """Set by the reconciler: nodes may then let their detail go (see `Detail`),
        and derived states their findings."""
        self._complete: set[str] = set()
        """Paths whose derived findings are held until `release`."""

    # -- index maintenance -------------------------------------------------
    def _index(self, node: RecordNode, add: bool) -> None:
        scope = node.scope or ""
        if node.id:
            self.ids.toggle(scope, node.id, node.path, add)
        for name in node.names:
            self.names.toggle(scope, name, node.path, add)
        self.files.toggle("", file_key(node.path), node.path, add)

    def _set_derived(
        self,
        path: str,
        derived: Derived | None,
        staged: tuple[Staged[tuple[str, str]], Staged[str]] | None = None,
    ) -> None:
        """Make `derived` the file's derived state and file its watched keys and
        dependencies. `staged`: (watchers, dependents) gathered for one `Index.fill` after
        the step's derivations, which read neither index (`apply`)."""
        old = self.derived.pop(path, None)
        if old is not None:
            for kind, scope, value in old.watched_keys():
                self.watchers.toggle((kind, scope), value, path, False)
            for target in old.depends_on:
                self.dependents.toggle(old.scope, target, path, False)
        if derived is None:
            return
        self.derived[path] = derived
        if self.details is not None:
            self._complete.add(path)
        kinds: list[str] = []
        values: list[str] = []
        intern = sys.intern
        if staged is None:
            for kind, scope, value in derived.pending or ():
                shared = intern(value)  # many records watch the same path, name or id
                kinds.append(kind)
                values.append(shared)
                self.watchers.toggle((kind, scope), shared, path, True)
            for target in derived.depends_on:
                self.dependents.toggle(derived.scope, target, path, True)
        else:
            watchers, dependents = staged
            for kind, scope, value in derived.pending or ():
                shared = intern(value)
                kinds.append(kind)
                values.append(shared)
                group = watchers.get((kind, scope))
                if group is None:
                    group = watchers[(kind, scope)] = {}
                members = group.get(shared)
                if members is None:
                    group[shared] = [path]
                else:
                    members.append(path)
            if derived.depends_on:
                stage(dependents, derived.scope, derived.depends_on, path)
        derived.watched_kinds = intern("".join(kinds))  # a few hundred patterns in 100k records
        derived.watched = tuple(values)
        derived.pending = None

    def restore(self, entries: Iterable[tuple[RecordNode, Derived]]) -> None:
        """File nodes and derived states as `graph.snapshot` stored them, without
        deriving: they are what the last write derived, so the indexes are all
        that needs building. Findings and details come back on the next derive.

        The indexes are staged as plain lists and converted once (`Index.fill`):
        at 100,000 files that is two million entries, and a `toggle` each cost
        seconds."""
        ids: Staged[str] = {}
        names: Staged[str] = {}
        files: Staged[str] = {"": {}}
        by_name = files[""]
        watched: Staged[tuple[str, str]] = {}
        depends: Staged[str] = {}
        for node, derived in entries:
            path = node.path
            scope = node.scope or ""
            node.source = self.details
            self.nodes[path] = node
            self.derived[path] = derived
            if node.id:
                stage(ids, scope, (node.id,), path)
            if node.names:
                stage(names, scope, node.names, path)
            name = file_key(path)
            same = by_name.get(name)
            if same is None:
                by_name[name] = [path]
            else:
                same.append(path)
            kinds, count, start = derived.watched_kinds, len(derived.watched_kinds), 0
            while start < count:  # one `stage` per run of one kind (a snapshot keeps them sorted)
                kind, end = kinds[start], start + 1
                while end < count and kinds[end] == kind:
                    end += 1
                stage(watched, (kind, key_scope(kind, derived.scope)), derived.watched[start:end], path)
                start = end
            if derived.depends_on:
                stage(depends, derived.scope, derived.depends_on, path)
        self.ids.fill(ids)
        self.names.fill(names)
        self.files.fill(files)
        self.watchers.fill(watched)
        self.dependents.fill(depends)
        for scope, record_id in self.guards:  # the snapshot keeps what files say
            for path in self.ids.get(scope, record_id):
                self._guard(self.nodes[path])

    def _guard(self, node: RecordNode) -> None:
        """Give a node entering the graph the lifecycle its durable guard holds,
        when its file says less (a restored or stale copy)."""
        if not node.is_record or not node.id:
            return
        held = self.guards.get((node.scope or "", node.id))
        if held is not None and outranks(held.guard, node.lifecycle):
            self.guarded[node.path] = node.lifecycle
            node.lifecycle = sys.intern(held.guard)

    def own_lifecycle(self, path: str) -> str:
        """The lifecycle a file says, whatever a guard makes of it."""
        return self.guarded.get(path) or self.nodes[path].lifecycle

    # -- the incremental step ----------------------------------------------
    def apply(
        self,
        changed: Mapping[str, RecordNode | ParsedFile | None],
        ontology_changed: Iterable[str] = (),
        *,
        stream: bool = False,
    ) -> set[str]:
        """Replace/remove the given files and re-derive what depends on them.

        Returns the paths whose derived state was recomputed (removed paths
        included), which is what the store must rewrite.

        `stream`: every node given is already in the parse cache and nothing
        will be written (loading the graph), so each chunk of nodes lets its
        detail go as soon as it is derived and the whole set is never in
        memory at once.
        """
        touched: set[Key] = set()
        details = self.details
        self.attachments.reset()  # files may have come or gone since the last step
        for path, given in changed.items():
            old = self.nodes.get(path)
            new = RecordNode(given) if isinstance(given, ParsedFile) else given
            self.guarded.pop(path, None)
            if new is not None:
                self._guard(new)
                if details is not None:
                    details.adopt(new)
            touched |= _touched_keys(old, new)
            if old is not None:
                self._index(old, False)
                del self.nodes[path]
            if new is not None:
                self.nodes[path] = new
                self._index(new, True)
        redo: set[str] = {p for p in changed if p in self.nodes}
        for key in touched:
            redo.update(self.watchers.get((key[0], key[1]), key[2]))
            if key[0] == "i":
                redo.update(self.ids.get(key[1], key[2]))
        scopes = set(ontology_changed)
        if scopes:
            redo |= {p for p, n in self.nodes.items() if n.scope in scopes}
        for path in changed:
            if path not in self.nodes:
                self._set_derived(path, None)
        ordered = sorted(p for p in redo if p in self.nodes)
        # Derivation reads neither the watchers nor the dependents: what it adds to them is
        # filed in one pass once every record is derived (a toggle each cost a cold scan
        # a fifth of this step).
        staged: tuple[Staged[tuple[str, str]], Staged[str]] = ({}, {})
        for start in range(0, len(ordered), DERIVE_CHUNK):
            chunk = [self.nodes[p] for p in ordered[start : start + DERIVE_CHUNK]]
            if details is not None:
                details.fill(chunk)  # one query for the chunk, not one per node
            for node in chunk:
                self._set_derived(node.path, rules.derive(self, node), staged)
            if stream and details is not None:
                details.release(chunk)
                for node in chunk:
                    self.derived[node.path].release_findings()
                    self._complete.discard(node.path)
        self.watchers.fill(staged[0])
        self.dependents.fill(staged[1])
        recomputed = set(redo) | {p for p in changed if p not in self.nodes}
        flipped = eligibility.propagate(redo, self.nodes, self.derived, self.ids, self.dependents)
        self._complete_findings(flipped)
        return recomputed | flipped

    def _complete_findings(self, paths: Iterable[str]) -> None:
        """Derive again the released findings of records whose rows must be
        rewritten although nothing they looked at changed (their eligibility
        flipped): the same inputs give the same findings."""
        wanted = [self.nodes[p] for p in sorted(paths) if p in self.derived and not self.derived[p].complete]
        if not wanted:
            return
        if self.details is not None:
            self.details.fill(wanted)
        for node in wanted:
            self.derived[node.path].adopt_findings(rules.derive(self, node))
            self._complete.add(node.path)

    def release(self) -> None:
        """Once the projections are written: let go of what only derivation
        and the projection writers read (node details, derived findings)."""
        if self.details is None:
            return
        self.details.release()
        for path in self._complete:
            derived = self.derived.get(path)
            if derived is not None:
                derived.release_findings()
        self._complete.clear()


def _touched_keys(old: RecordNode | None, new: RecordNode | None) -> set[Key]:
    """Keys whose meaning a change of one file alters (what its watchers must redo)."""
    if old is None or new is None:
        node = old or new
        return node.provided_keys() if node is not None else set()
    if old.id != new.id or old.is_record != new.is_record:
        return old.provided_keys() | new.provided_keys()
    keys = old.provided_keys() ^ new.provided_keys()
    if old.identity_signature() != new.identity_signature():
        keys.add(("i", new.scope or "", new.id or ""))
    if old.sha256 != new.sha256:
        # Only evidence that pins these bytes by sha256 watches this key; links by
        # path watch ('p', …), which only existence changes.
        keys.add(("b", new.scope or "", new.rel))
    return keys
