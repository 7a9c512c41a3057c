"""Activating a partition's ontology: loading manifests, composing, fingerprinting.

Spec: records-and-ontology — Ontology, Composition rules, Fingerprints.

Decision (the spec leaves it open): when activation fails, the partition has
no ontology at all — there is no last-known-good fallback. Its pages and
relationships stay listed and inspectable but are invalid
(`ontology-unavailable`), so they drop out of lookup and search until the
manifest is fixed; claims, whose kinds are fixed by the format, are still
checked. One `ontology-activation-failed` diagnostic names the manifest and
the chain that failed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from knowledge_desktop.engine.limits import MAX_EXTENDS_DEPTH
from knowledge_desktop.engine.ontology.model import Definition, Manifest
from knowledge_desktop.engine.records import yaml12

SHIPPED_PATH = "<shipped>/knowledge-default.yaml"
ACTIVE_FILE = "ontology.yaml"
LIBRARY_DIR = "ontologies"


def shipped_default_path() -> Path:
    from knowledge_desktop.resources import resource_path

    return resource_path("ontology", "knowledge-default.yaml")


@dataclass(frozen=True, slots=True)
class ManifestSource:
    path: str
    """Vault-relative path, or SHIPPED_PATH for the built-in default."""
    text: str
    problem: str | None = None
    """Why the file could not be read as text (then `text` is empty)."""


@dataclass(frozen=True, slots=True)
class ManifestProblem:
    path: str
    line: int | None
    message: str


@dataclass(slots=True)
class Ontology:
    """The effective vocabulary of one partition."""

    name: str
    version: str
    fingerprint: str
    chain: list[tuple[str, str]]
    """(manifest name, path) from the active manifest to the root ancestor."""
    borrowed: list[tuple[str, str, list[str]]]
    """(borrowing manifest, donor, definition names)."""
    definitions: dict[str, Definition]
    order: list[str]
    """Definition names, highest precedence first (classification order)."""
    alias_groups: dict[str, frozenset[str]] = field(default_factory=dict)

    def page_types(self) -> list[Definition]:
        return [self.definitions[n] for n in self.order if self.definitions[n].kind == "page"]

    def classify(self, partition_path: str) -> str | None:
        """The page type whose prefix first matches a partition-relative path."""
        for definition in self.page_types():
            for prefix in definition.effective_prefixes():
                if partition_path.startswith(prefix):
                    return definition.name
        return None

    def expand(self, type_name: str) -> frozenset[str]:
        """A type name and every name in its alias group (symmetric, transitive)."""
        return self.alias_groups.get(type_name, frozenset({type_name}))


@dataclass(slots=True)
class Activation:
    ontology: Ontology | None
    failure: ManifestProblem | None = None
    chain_text: str = ""
    problems: list[ManifestProblem] = field(default_factory=list)
    """Malformed manifests that were not needed; reported, but not fatal."""


class _Fail(Exception):
    def __init__(self, problem: ManifestProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def load_manifest(source: ManifestSource) -> Manifest:
    if source.problem is not None:
        raise _Fail(ManifestProblem(source.path, None, source.problem))
    try:
        loaded = yaml12.load(source.text)
    except yaml12.YamlError as exc:
        line = exc.line + 1 if exc.line is not None else None
        raise _Fail(ManifestProblem(source.path, line, f"YAML: {exc.message}")) from None
    try:
        return Manifest.model_validate(loaded.data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first["loc"])
        line = None
        key = loc
        while key:
            if key in loaded.key_lines:
                line = loaded.key_lines[key] + 1
                break
            key = key.rpartition(".")[0]
        more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        raise _Fail(ManifestProblem(source.path, line, f"{loc}: {first['msg']}{more}")) from None


def activate(active: ManifestSource | None, library: list[ManifestSource]) -> Activation:
    """Compose the effective ontology from the active manifest and the library.

    `library` holds the partition's `ontologies/*.yaml` and the shipped
    default. With no active manifest the shipped default is used as is.
    """
    shipped = next((s for s in library if s.path == SHIPPED_PATH), None)
    if active is None:
        if shipped is None:
            raise ValueError("the shipped default ontology is missing from the library")
        active = shipped
        library = [s for s in library if s is not shipped]
    by_name: dict[str, list[tuple[ManifestSource, Manifest]]] = {}
    problems: list[ManifestProblem] = []
    for source in library:
        try:
            manifest = load_manifest(source)
        except _Fail as exc:
            problems.append(exc.problem)
            by_name.setdefault("", [])  # "" never matches a valid name: it lists unreadable ones
            by_name[""].append((source, None))  # type: ignore[arg-type]
            continue
        by_name.setdefault(manifest.name, []).append((source, manifest))
    try:
        root = load_manifest(active)
        if root.name in by_name and active.path != SHIPPED_PATH:
            others = ", ".join(s.path for s, _ in by_name[root.name])
            raise _Fail(
                ManifestProblem(active.path, 1, f"manifest name {root.name!r} is also declared by {others}")
            )
        ontology = _compose(active, root, by_name)
    except _Fail as exc:
        return Activation(None, exc.problem, _chain_text(exc.problem), problems)
    return Activation(ontology, None, " → ".join(n for n, _ in ontology.chain), problems)


def _chain_text(problem: ManifestProblem) -> str:
    return problem.message


def _lookup(
    name: str, by_name: dict[str, list[tuple[ManifestSource, Manifest]]], needed_by: ManifestSource
) -> tuple[ManifestSource, Manifest]:
    found = by_name.get(name)
    if not found:
        unread = by_name.get("", [])
        hint = ""
        if unread:
            hint = "; unreadable manifests that might be it: " + ", ".join(s.path for s, _ in unread)
        raise _Fail(
            ManifestProblem(needed_by.path, None, f"missing dependency: no manifest is named {name!r}{hint}")
        )
    if len(found) > 1:
        paths = ", ".join(s.path for s, _ in found)
        raise _Fail(ManifestProblem(needed_by.path, None, f"duplicate manifest name {name!r} in {paths}"))
    return found[0]


def _compose(
    active: ManifestSource,
    root: Manifest,
    by_name: dict[str, list[tuple[ManifestSource, Manifest]]],
) -> Ontology:
    chain: list[tuple[ManifestSource, Manifest]] = [(active, root)]
    seen = {root.name}
    current = root
    while current.extends is not None:
        names = " → ".join([m.name for _, m in chain] + [current.extends])
        if current.extends in seen:
            raise _Fail(ManifestProblem(active.path, None, f"cycle in extends: {names}"))
        source, manifest = _lookup(current.extends, by_name, chain[-1][0])
        chain.append((source, manifest))
        seen.add(manifest.name)
        if len(chain) > MAX_EXTENDS_DEPTH:
            raise _Fail(
                ManifestProblem(
                    active.path, None, f"extends chain is longer than {MAX_EXTENDS_DEPTH} manifests: {names}"
                )
            )
        current = manifest

    effective: dict[str, Definition] = {}
    rank: dict[str, tuple[int, int]] = {}
    borrowed: list[tuple[str, str, list[str]]] = []
    layer = 0
    for source, manifest in reversed(chain):
        layer += 1
        inherited = set(effective)
        first_new: set[str] = set()
        for borrow in manifest.borrow_from:
            donor_source, donor = _lookup(borrow.ontology, by_name, source)
            own = _own_definitions(donor, donor_source)
            taken: list[str] = []
            for wanted, kind in [(n, "page") for n in borrow.types] + [
                (n, "relationship") for n in borrow.relationships
            ]:
                definition = own.get(wanted)
                if definition is None or definition.kind != kind:
                    raise _Fail(
                        ManifestProblem(
                            source.path,
                            None,
                            f"borrows {kind} {wanted!r} from {donor.name!r}, which does not declare it",
                        )
                    )
                if wanted not in inherited and wanted in first_new:
                    continue  # a new definition keeps the first donor's declaration
                _place(effective, rank, definition, (layer, 0), source)
                if wanted not in inherited:
                    first_new.add(wanted)
                taken.append(wanted)
            borrowed.append((manifest.name, donor.name, taken))
        layer += 1
        for position, definition in enumerate(_own_definitions(manifest, source).values()):
            _place(effective, rank, definition, (layer, -position), source)

    order = sorted(effective, key=lambda n: rank[n], reverse=True)
    ontology = Ontology(
        name=root.name,
        version=root.version,
        fingerprint="",
        chain=[(m.name, s.path) for s, m in chain],
        borrowed=borrowed,
        definitions=effective,
        order=order,
    )
    ontology.alias_groups = _alias_groups(effective)
    ontology.fingerprint = fingerprint(ontology)
    return ontology


def _own_definitions(manifest: Manifest, source: ManifestSource) -> dict[str, Definition]:
    own: dict[str, Definition] = {}
    for definition in manifest.definitions:
        if definition.name in own:
            raise _Fail(
                ManifestProblem(
                    source.path,
                    None,
                    f"{manifest.name!r} declares {definition.name!r} twice "
                    "(page and relationship names share one namespace)",
                )
            )
        own[definition.name] = definition
    return own


def _place(
    effective: dict[str, Definition],
    rank: dict[str, tuple[int, int]],
    definition: Definition,
    where: tuple[int, int],
    source: ManifestSource,
) -> None:
    previous = effective.get(definition.name)
    if previous is not None and previous.kind != definition.kind:
        raise _Fail(
            ManifestProblem(
                source.path,
                None,
                f"{definition.name!r} is an inherited {previous.kind}; an override cannot make it a "
                f"{definition.kind}",
            )
        )
    effective[definition.name] = definition
    rank[definition.name] = where


def _alias_groups(definitions: dict[str, Definition]) -> dict[str, frozenset[str]]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for definition in definitions.values():
        find(definition.name)
        for alias in definition.aliases:
            parent[find(alias)] = find(definition.name)
    groups: dict[str, set[str]] = {}
    for name in list(parent):
        groups.setdefault(find(name), set()).add(name)
    return {name: frozenset(groups[find(name)]) for name in parent}


def fingerprint(ontology: Ontology) -> str:
    """SHA-256 over the canonical effective definitions plus active name and version.

    Canonical means: every definition as validated data with defaults filled
    in (so formatting, comments, key order and spelled-out defaults vanish),
    sorted by name, and the ordered prefix table that classification uses.
    """
    definitions = []
    for name in sorted(ontology.definitions):
        definition = ontology.definitions[name]
        data = definition.model_dump(mode="json")
        data["aliases"] = sorted(data["aliases"])
        data["prefixes"] = definition.effective_prefixes()  # the directory default spelled out
        definitions.append(data)
    prefixes = [[prefix, d.name] for d in ontology.page_types() for prefix in d.effective_prefixes()]
    canonical = json.dumps(
        {
            "name": ontology.name,
            "version": ontology.version,
            "definitions": definitions,
            "prefixes": prefixes,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
