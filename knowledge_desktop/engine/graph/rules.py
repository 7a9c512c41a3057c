"""Deriving one record: the rules that judge it against its partition.

`derive` applies them in a fixed order (duplicate ids, the page or
relationship against the ontology, typed references and merge chains,
evidence, links) and gathers their diagnostics in that order. Rules read
other files through the `Resolver`, and every key they look at goes into
the record's watch.
"""

from __future__ import annotations

import sys

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph import evidence, note_links
from knowledge_desktop.engine.graph.derived import Derived, ResolvedLink, ResolvedRef
from knowledge_desktop.engine.graph.detail import HISTORY_FIELDS, REFERENCE_FIELDS
from knowledge_desktop.engine.graph.fields import check_fields
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.resolve import Resolver
from knowledge_desktop.engine.limits import MAX_MERGE_HOPS, MAX_SUPERSEDED_HOPS
from knowledge_desktop.engine.links.precedence import in_collection_folder
from knowledge_desktop.engine.ontology.compose import Ontology


def derive(resolver: Resolver, node: RecordNode) -> Derived:
    """What `node` means among the other files of its partition."""
    if node.is_note:
        return note_links.derive_note(resolver, node)
    scope = node.scope or ""
    derived = Derived(scope=scope)
    if not node.id:
        derived.watch.add(("i", scope, ""))
    # A record needs no watch on its own id: `VaultGraph.apply` re-derives every
    # file holding a touched id through the ids index (that is what finds duplicates).
    if not node.is_record:
        return derived
    record_id = node.id
    diags = derived.diagnostics
    same_id = resolver.ids.get(scope, record_id or "")
    derived.duplicate = len(same_id) > 1
    if derived.duplicate:
        others = sorted(p for p in same_id if p != node.path)
        diags.append(
            _about(
                node,
                "duplicate-id",
                f"id {record_id!r} is also used by {', '.join(others)}",
                line=node.key_lines.get("id"),
            )
        )
    valid = node.structurally_valid
    activation = resolver.ontologies.get(scope)
    ontology = activation.ontology if activation else None
    kind = node.kind
    if kind == "page":
        valid &= _check_page(node, ontology, derived)
    elif kind == "claim":
        claim_kind = node.value("claim_kind")
        derived.type = sys.intern(str(claim_kind)) if claim_kind else None
        _check_filing(node, "claims/", "claims", derived)
    elif kind == "relationship":
        valid &= _check_relationship_label(node, ontology, derived)
    valid &= _check_refs(resolver, node, derived)
    own = resolver.guarded.get(node.path)
    if own is not None:
        diags.append(_guarded(resolver, node, own))
    derived.evidence = tuple(evidence.check(resolver, node, derived.watch, diags))
    results: list[str | None] = []
    watch = derived.watch
    for raw in node.links:
        resolved = resolver.resolve_link(node, raw, watch)
        results += (resolved.status, resolved.target_id, resolved.target_path)
        if resolved.status != "resolved":
            diags.append(_link_diagnostic(node, resolved))
    derived.link_results = tuple(results)
    derived.valid = valid
    derived.own_window = node.window
    derived.window = derived.own_window
    return derived


def _check_page(node: RecordNode, ontology: Ontology | None, derived: Derived) -> bool:
    diags = derived.diagnostics
    declared = node.value("type") if isinstance(node.value("type"), str) else None
    if ontology is None:
        diags.append(
            _about(
                node,
                "ontology-unavailable",
                f"partition {node.scope!r} has no active ontology",
                line=node.key_lines.get("type"),
            )
        )
        derived.type = declared
        return False
    if declared is None:
        derived.type = ontology.classify(node.rel)
        if derived.type is None:
            diags.append(
                _about(node, "unclassified-page", "no type, and no ontology prefix matches this path")
            )
            return True
    else:
        derived.type = declared
    definition = ontology.definitions.get(derived.type)
    if definition is None or definition.kind != "page":
        what = "a relationship label" if definition else "not defined"
        diags.append(
            _about(
                node,
                "unknown-type",
                f"type {derived.type!r} is {what} in ontology {ontology.name!r}",
                line=node.key_lines.get("type"),
            )
        )
        return False
    ok = check_fields(node, definition, diags)
    if definition.directory:
        _check_filing(node, definition.directory, definition.name, derived)
    return ok


def _check_relationship_label(node: RecordNode, ontology: Ontology | None, derived: Derived) -> bool:
    diags = derived.diagnostics
    label = node.value("label") if isinstance(node.value("label"), str) else None
    derived.type = label
    if ontology is None:
        diags.append(
            _about(
                node,
                "ontology-unavailable",
                f"partition {node.scope!r} has no active ontology",
                line=node.key_lines.get("label"),
            )
        )
        return False
    if label is None:
        return False
    definition = ontology.definitions.get(label)
    if definition is None or definition.kind != "relationship":
        diags.append(
            _about(
                node,
                "unknown-relationship-label",
                f"label {label!r} is not a relationship in ontology {ontology.name!r}",
                line=node.key_lines.get("label"),
            )
        )
        return False
    if definition.directory:
        _check_filing(node, definition.directory, label, derived)
    return True


def _check_filing(node: RecordNode, directory: str, what: str, derived: Derived) -> None:
    """`misfiled` when the record is outside its type's directory — unless it is in a
    collection folder, where documents are filed by collection by design (issue 32 §7), or
    marked `filing: in-place`, as adopting a note kept where its author put it (issue 29 §5)."""
    if (
        not node.rel.startswith(directory)
        and not in_collection_folder(node.path)
        and node.value("filing") != "in-place"
    ):
        derived.diagnostics.append(_about(node, "misfiled", f"{what} records are filed under {directory}"))


def _check_refs(resolver: Resolver, node: RecordNode, derived: Derived) -> bool:
    """Typed references, relationship endpoints and the record's own merge chain."""
    scope = node.scope or ""
    ok = True
    lines = node.key_lines
    refs: list[ResolvedRef] = []
    depends_on: list[str] = []
    for field_name, target in node.refs:
        ref, final_path = resolver.resolve_ref(scope, field_name, target, derived.watch)
        refs.append(ref)
        final, status = ref.resolved_id, ref.status
        if field_name in REFERENCE_FIELDS and final is not None and status == "resolved":
            depends_on.append(final)
        if status == "resolved":
            continue
        line = lines.get(field_name)
        if field_name in HISTORY_FIELDS:
            if status == "missing" and field_name in ("superseded_by", "merged_into"):
                derived.diagnostics.append(
                    _about(
                        node,
                        "reference-missing",
                        f"{field_name} names {target!r}, which is not in this partition",
                        line=line,
                    )
                )
            continue
        ok = False
        if status == "wrong-kind":
            derived.diagnostics.append(
                _about(
                    node,
                    "reference-wrong-kind",
                    f"{field_name} must name a page; {target!r} is a {resolver.kind_at(final_path or '')}",
                    line=line,
                )
            )
        elif status == "broken-merge":
            derived.diagnostics.append(
                _about(
                    node,
                    "merge-chain-invalid",
                    f"{field_name} {target!r} leads into a broken merge chain",
                    line=line,
                )
            )
        else:
            reason = "matches no record" if status == "missing" else "is a duplicate id"
            derived.diagnostics.append(
                _about(node, "reference-missing", f"{field_name} {target!r} {reason}", line=line)
            )
    derived.refs = tuple(refs)
    derived.depends_on = tuple(depends_on)
    if node.kind == "relationship":
        ok &= _check_endpoints(resolver, node, derived)
    if node.lifecycle == "merged":
        _, _, status = resolver.follow_merges(scope, node.id or "", derived.watch)
        if status != "resolved":
            found = resolver.chain_problem(
                scope, node.id or "", "merged_into", "merged", MAX_MERGE_HOPS, derived.watch
            )
            why = found[1] if found else f"a cycle, a dead end or more than {MAX_MERGE_HOPS} hops"
            derived.diagnostics.append(
                _about(
                    node,
                    "merge-chain-invalid",
                    f"merged_into does not reach an active page: {why}",
                    line=lines.get("merged_into"),
                )
            )
            ok = False
    if node.lifecycle == "superseded" and node.id:
        found = resolver.chain_problem(
            scope, node.id, "superseded_by", "superseded", MAX_SUPERSEDED_HOPS, derived.watch
        )
        if found is not None and found[0] != "dead-end":  # a dead end is reference-missing already
            derived.diagnostics.append(
                _about(
                    node,
                    "supersede-chain-invalid",
                    f"superseded_by never reaches a current record: {found[1]}",
                    line=lines.get("superseded_by"),
                )
            )
    return ok


def _check_endpoints(resolver: Resolver, node: RecordNode, derived: Derived) -> bool:
    activation = resolver.ontologies.get(node.scope or "")
    ontology = activation.ontology if activation else None
    label = node.value("label")
    if ontology is None or not isinstance(label, str):
        return True
    definition = ontology.definitions.get(label)
    if definition is None:
        return True
    ok = True
    for ref in derived.refs:
        allowed = (
            definition.from_types
            if ref.field == "from"
            else (definition.to_types if ref.field == "to" else None)
        )
        if not allowed or ref.status != "resolved" or ref.resolved_id is None:
            continue
        target_path = next(iter(resolver.ids.get(node.scope or "", ref.resolved_id)))
        target_type = resolver.page_type(target_path)
        derived.watch.add(("i", node.scope or "", ref.resolved_id))
        if target_type not in allowed:
            ok = False
            derived.diagnostics.append(
                _about(
                    node,
                    "endpoint-type-not-permitted",
                    f"{label} needs {ref.field} to be a {' or '.join(allowed)} page; "
                    f"{ref.resolved_id!r} is a {target_type or 'untyped'} page",
                    line=node.key_lines.get(ref.field),
                )
            )
    return ok


def _guarded(resolver: Resolver, node: RecordNode, own: str) -> Diagnostic:
    held = resolver.guards.get((node.scope or "", node.id or ""))
    by = f" by {held.by_id}" if held is not None and held.by_id else ""
    return _about(
        node,
        "lifecycle-guarded",
        f"this file says lifecycle {own!r}, but {node.id} was {node.lifecycle}{by} by a published "
        f"request: it stays {node.lifecycle} (a restored or stale copy cannot bring it back)",
        line=node.key_lines.get("lifecycle"),
    )


def _link_diagnostic(node: RecordNode, link: ResolvedLink) -> Diagnostic:
    raw = link.raw
    shown = f"[[{raw.target}]]" if raw.kind == "wiki" else f"({raw.target})"
    line = node.body_line + raw.line
    if link.status == "ambiguous":
        what = f"several files; it goes to {link.target_path}" if link.target_path else "several records"
        return _about(node, "link-ambiguous", f"link {shown} matches {what}", line=line)
    if link.status == "outside":
        return _about(node, "link-outside-partition", f"link {shown} leaves the partition", line=line)
    if link.status == "broken-merge":
        return _about(
            node,
            "merge-chain-invalid",
            f"link {shown} points at a page whose merge chain is broken",
            line=line,
        )
    return _about(node, "link-missing", f"link {shown} matches no record", line=line)


def _about(node: RecordNode, code: str, message: str, *, line: int | None = None) -> Diagnostic:
    """A diagnostic on `node`: every rule here speaks of the record's own file and id."""
    return dg.make(code, node.path, message, line=line, record_id=node.id)
