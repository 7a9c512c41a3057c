"""What an operation reads while it plans: the current records, fenced, and the rules to meet.

`WriteContext` is handed to an operation's planner by the publish path, with
the vault's write lock held. It gives the operation the record a fence
names (checked against the file's bytes as they are now), the partition's
ontology (recorded as an ontology fence for assertion writes), fresh ids
and file names, and `validate`, the read side's own validation run on the
bytes the operation means to write. Whatever it checks, it remembers, so
that publish can check it once more right before the first file is replaced.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.fs.inside import read_inside
from knowledge_desktop.engine.graph import rules
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.ontology.compose import Activation, Ontology
from knowledge_desktop.engine.reading import activate_partition
from knowledge_desktop.engine.reconcile import Reconciler
from knowledge_desktop.engine.records.parse import ParsedFile, parse_bytes, sha256_hex
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write import naming
from knowledge_desktop.engine.write.plan import Fence, Request, WriteRejected
from knowledge_desktop.engine.write.references import check_references, survivor_of


@dataclass(slots=True)
class Current:
    """A record as it is on disk now."""

    path: str
    scope: str
    record_id: str
    data: bytes
    parsed: ParsedFile

    @property
    def sha256(self) -> str:
        return self.parsed.sha256

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @property
    def frontmatter(self) -> dict[str, Any]:
        return dict(self.parsed.data or {})

    @property
    def kind(self) -> str | None:
        value = self.frontmatter.get("kind")
        return value if isinstance(value, str) else None

    @property
    def revision(self) -> int | None:
        value = self.frontmatter.get("revision")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def lifecycle(self) -> str | None:
        value = self.frontmatter.get("lifecycle")
        return value if isinstance(value, str) else None

    def fence(self) -> Fence:
        return Fence(self.record_id, self.revision or 0, self.sha256)


@dataclass(slots=True)
class WriteContext:
    root: Path
    store: Store
    reconciler: Reconciler
    reconcile: Callable[[list[str]], ChangeSet]
    request: Request
    vault_id: str
    now: str
    """The operation's time (UTC, milliseconds, Z): every timestamp it writes."""
    checked: list[tuple[str, str]] = field(default_factory=list)
    """(path, sha256) of every fenced record, for publish to check again."""
    ontology_fences: dict[str, str] = field(default_factory=dict)
    """scope -> the ontology fingerprint an assertion write was planned against."""
    new_partitions: dict[str, Activation] = field(default_factory=dict)
    """scope -> the activation of a partition folder the plan creates (no file there yet: the
    shipped default), read once per plan (`new_partition`)."""

    def new_partition(self, scope: str) -> Activation:
        """The activation a partition folder the plan creates will have (root notes moving
        into it); read once per plan, since every note moving there asks."""
        if scope not in self.new_partitions:
            self.new_partitions[scope] = activate_partition(self.root, scope)
        return self.new_partitions[scope]

    # -- reading records ---------------------------------------------------------
    def record(self, fence: Fence, *, allow_merged: bool = False) -> Current:
        """The record `fence` names, if it is still what the writer saw (else WriteRejected:
        `not-found`, `duplicate-id`, `merged-target` with the survivor, `fence-revision`,
        `fence-hash`). `allow_merged`: a merged page is what the operation works on (unmerge)."""
        current = self.lookup(fence.record_id)
        shown = {"id": current.record_id, "revision": current.revision, "hash": current.sha256}
        shown["path"] = current.path
        if current.lifecycle == "merged" and not allow_merged:
            survivor = survivor_of(self.reconciler.graph(), current.scope, current.record_id)
            raise WriteRejected(
                "merged-target",
                f"{current.record_id} was merged into {survivor or 'a page that cannot be resolved'}; "
                "write to the survivor instead",
                {**shown, "survivorId": survivor},
            )
        if current.revision != fence.revision:
            raise WriteRejected(
                "fence-revision",
                f"{fence.record_id} is at revision {current.revision}, not {fence.revision}: "
                "it changed since it was read; read it again",
                shown,
            )
        if current.sha256 != fence.sha256:
            raise WriteRejected(
                "fence-hash",
                f"the file of {fence.record_id} ({current.path}) changed since it was read "
                "(its hash differs); read it again",
                shown,
            )
        self.checked.append((current.path, current.sha256))
        return current

    def lookup(self, record_id: str) -> Current:
        """A record by id, read from disk now, without a fence (reconciled first)."""
        paths = self._paths_of(record_id)
        if paths:
            self.reconcile(paths)  # the catalog must describe the files as they are now
            paths = self._paths_of(record_id)
        if not paths:
            raise WriteRejected("not-found", f"no record with id {record_id!r} in this vault", {})
        if len(paths) > 1:
            raise WriteRejected(
                "duplicate-id",
                f"id {record_id!r} is used by several files ({', '.join(paths)}); fix that first",
                {"paths": paths},
            )
        path = paths[0]
        scope = path.split("/", 1)[0]
        try:
            data = read_inside(self.root, path)
        except OSError as exc:
            raise WriteRejected("unreadable", f"cannot read {path}: {exc.strerror or exc}", {}) from None
        parsed = parse_bytes(path, scope, data)
        if parsed.record_id != record_id:
            raise WriteRejected(
                "fence-hash", f"{path} no longer holds {record_id}; read it again", {"path": path}
            )
        return Current(path, scope, record_id, data, parsed)

    def exists(self, record_id: str) -> bool:
        """Whether any file of the vault holds `record_id` (as the catalog knows it now)."""
        return bool(self._paths_of(record_id))

    def _paths_of(self, record_id: str) -> list[str]:
        rows = self.store.reader().execute(
            "SELECT path FROM catalog WHERE id=? AND status='record' ORDER BY path", (record_id,)
        )
        return [p for (p,) in rows]

    def scopes(self) -> list[str]:
        return sorted(self.reconciler.ontologies())

    # -- rules ------------------------------------------------------------------------
    def ontology(self, scope: str, *, fence: bool) -> Ontology:
        """The partition's active ontology; `fence`: record (and check against the request's
        expected fingerprint) for an assertion write (spec: records-and-ontology, Fingerprints)."""
        self._refresh_manifests(scope)
        activation = self.reconciler.ontologies().get(scope)
        ontology = activation.ontology if activation is not None else None
        if ontology is None:
            raise WriteRejected(
                "ontology-unavailable", f"partition {scope!r} has no active ontology", {"scope": scope}
            )
        if fence:
            expected = self.request.expected_ontology_fingerprint
            if expected is not None and expected != ontology.fingerprint:
                raise WriteRejected(
                    "fence-ontology",
                    f"the ontology of {scope!r} changed since it was read; read it again",
                    {"scope": scope, "fingerprint": ontology.fingerprint},
                )
            self.ontology_fences[scope] = ontology.fingerprint
        return ontology

    def _refresh_manifests(self, scope: str) -> None:
        """Reconcile the partition's manifests that exist or existed (a path that is neither
        would make the reconciler look through every known file for what it held)."""
        manifest, folder = f"{scope}/ontology.yaml", f"{scope}/ontologies"
        known = (
            self.store.reader()
            .execute(
                "SELECT path FROM files WHERE path=? OR (path>? AND path<?) LIMIT 1",
                (manifest, folder + "/", folder + "0"),
            )
            .fetchone()
        )
        paths = [manifest, folder] if known else [p for p in (manifest, folder) if (self.root / p).exists()]
        if paths:
            self.reconcile(paths)

    def validate(
        self,
        path: str,
        scope: str,
        data: bytes,
        *,
        old: dict[str, Any] | None = None,
        new_partition: Activation | None = None,
    ) -> ParsedFile:
        """Judge the bytes to be written as the read side will; WriteRejected (`invalid-record`)
        listing every error, or `merged-target` when a reference newly names a merged page.
        `new_partition`: the activation a partition the write creates will have (the graph
        knows only the partitions there are)."""
        parsed = parse_bytes(path, scope, data)
        if parsed.status != "record":
            _reject_invalid(path, [d for d in parsed.diagnostics if d.severity is dg.Severity.ERROR])
        graph: Any = self.reconciler.graph()
        if new_partition is not None and scope not in graph.ontologies:
            graph = _WithPartition(graph, {**graph.ontologies, scope: new_partition})
        check_references(graph, scope, parsed.data or {}, old or {})
        node = RecordNode(parsed)
        derived = rules.derive(graph, node)
        errors = [
            d
            for d in (*parsed.diagnostics, *derived.diagnostics)
            if d.severity is dg.Severity.ERROR and d.code not in _ALLOWED
        ]
        if errors:
            _reject_invalid(path, errors)
        return parsed

    # -- new records --------------------------------------------------------------------
    def new_id(self, kind: str) -> str:
        return naming.new_id(kind, int(time.time() * 1000))

    def new_path(self, scope: str, directory: str, title: str, record_id: str) -> str:
        return naming.place(self.root, scope, directory, title, record_id)

    def sha_on_disk(self, path: str) -> str | None:
        try:
            return sha256_hex(read_inside(self.root, path))
        except FileNotFoundError:
            return None

    def fenced_paths(self) -> Iterable[tuple[str, str]]:
        return iter(self.checked)


class _WithPartition:
    """The graph as seen by a record of a partition it does not have yet: its lookups, with
    that partition's ontology added (read-only; the graph itself is untouched)."""

    def __init__(self, graph: Any, ontologies: dict[str, Activation]) -> None:
        self._graph = graph
        self.ontologies = ontologies

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)


_ALLOWED = frozenset({"invalid-recall"})
"""Errors that do not stop a write: a bad recall block is never injected, and is reported."""


def _reject_invalid(path: str, errors: list[dg.Diagnostic]) -> None:
    listed = "; ".join(f"line {d.line}: {d.message}" if d.line else d.message for d in errors[:10])
    more = f" (and {len(errors) - 10} more)" if len(errors) > 10 else ""
    raise WriteRejected(
        "invalid-record",
        f"{path} would not be a valid record: {listed}{more}",
        {"diagnostics": [d.as_json() for d in errors]},
    )
