"""A `VaultGraph` driven in memory: records are parsed from text and applied, no disk, no SQLite."""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.node import DetailSource, RecordNode
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.ontology.compose import ManifestSource, activate
from knowledge_desktop.engine.records.parse import parse_bytes
from tests.vaultkit import envelope, record_text

ONTOLOGY = """\
format: knowledge-ontology-v1
name: tiny
version: 1.0.0
definitions:
  - name: person
    kind: page
    directory: people/
    fields:
      - name: role
        type: string
  - name: project
    kind: page
    directory: projects/
  - name: works_on
    kind: relationship
    directory: relationships/
    from_types: [person]
    to_types: [project]
"""

CLAIM_FIELDS: dict[str, Any] = {
    "claim_kind": "fact",
    "assertion_origin": "source",
    "attribution": "Ada in the stand-up",
    "evidence": [{"url": "https://example.org/notes"}],
}


class GraphKit:
    """Files as bytes in a dict, applied to a graph one change at a time."""

    def __init__(self, *, release_details: bool = False) -> None:
        self.files: dict[str, bytes] = {}
        self.graph = VaultGraph()
        activation = activate(ManifestSource("private/ontology.yaml", ONTOLOGY), [])
        assert activation.ontology is not None, activation.failure
        self.graph.ontologies = {"private": activation}
        self.graph.probe = self.files.get
        if release_details:
            self.graph.details = DetailSource(self._read_back)

    def _read_back(self, paths: list[str]) -> list[RecordNode]:
        return [
            RecordNode(parse_bytes(p, p.split("/", 1)[0], self.files[p])) for p in paths if p in self.files
        ]

    # -- changing files ----------------------------------------------------
    def write(self, path: str, text: str | None) -> set[str]:
        """Create, change (text) or remove (None) a file; the paths derived again."""
        if text is None:
            del self.files[path]
            return self.graph.apply({path: None})
        data = text.encode("utf-8")
        self.files[path] = data
        return self.graph.apply({path: parse_bytes(path, path.split("/", 1)[0], data)})

    def page(self, rel: str, record_id: str, title: str, body: str = "", **extra: Any) -> set[str]:
        return self.write(f"private/{rel}", record_text(envelope(record_id, "page", title, **extra), body))

    def claim(
        self, rel: str, record_id: str, title: str, body: str = "The claim text.", **extra: Any
    ) -> set[str]:
        fields = {**CLAIM_FIELDS, **extra}
        return self.write(f"private/{rel}", record_text(envelope(record_id, "claim", title, **fields), body))

    def relationship(self, rel: str, record_id: str, source: str, target: str, label: str) -> set[str]:
        fields = {**CLAIM_FIELDS, "from": source, "to": target, "label": label}
        fields.pop("claim_kind")
        fields.pop("assertion_origin")
        text = record_text(envelope(record_id, "relationship", f"{source} {label} {target}", **fields))
        return self.write(f"private/{rel}", text)

    # -- reading -----------------------------------------------------------
    def derived(self, rel: str) -> Derived:
        return self.graph.derived[f"private/{rel}"]

    def codes(self, rel: str) -> list[str]:
        """Codes of what derivation found in the file, in order."""
        return [d.code for d in self.derived(rel).diagnostics]

    def eligible(self, rel: str) -> bool:
        derived = self.derived(rel)
        return derived.base_ok(self.graph.nodes[f"private/{rel}"].lifecycle) and derived.deps_ok

    def links(self, rel: str) -> list[tuple[str, str | None]]:
        """(status, target id) of each link in the file."""
        path = f"private/{rel}"
        return [
            (link.status, link.target_id) for link in self.derived(rel).resolved_links(self.graph.nodes[path])
        ]
