"""Checking a page's `fields` against what its type declares.

A required field that is missing or a value of the wrong shape makes the
page invalid; a field the type does not declare is only reported.
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.ontology.model import Definition
from knowledge_desktop.engine.records import dates

DATED_FIELD = "occurred_at"
"""The page field that dates a page (a meeting's occurrence): a structured date like a
claim's `occurred_at`, judged by the same rules (spec: records-and-ontology, the date
forms; retrieval-and-dates, Dates and Chronicle)."""


def check_fields(node: RecordNode, definition: Definition, diags: list[Diagnostic]) -> bool:
    """Whether the page's fields satisfy `definition`; each finding goes to `diags`."""
    raw = node.value("fields")
    values: dict[str, Any] = raw if isinstance(raw, dict) else {}
    lines = node.key_lines
    ok = True
    declared = {f.name: f for f in definition.fields}
    for spec in definition.fields:
        line = lines.get(f"fields.{spec.name}", lines.get("fields"))
        if spec.name not in values:
            if spec.required:
                ok = False
                diags.append(
                    dg.make(
                        "field-invalid",
                        node.path,
                        f"fields.{spec.name} is required for {definition.name} pages",
                        line=lines.get("fields", lines.get("type")),
                        record_id=node.id,
                    )
                )
            continue
        value = values[spec.name]
        problem = _field_problem(spec.type, spec.values, value)
        if problem:
            ok = False
            diags.append(
                dg.make(
                    "field-invalid", node.path, f"fields.{spec.name}: {problem}", line=line, record_id=node.id
                )
            )
    if not _dated_field_ok(node, values.get(DATED_FIELD), diags):
        ok = False
    for name in values:
        if name not in declared:
            diags.append(
                dg.make(
                    "field-undeclared",
                    node.path,
                    f"fields.{name} is not declared for {definition.name} pages",
                    line=lines.get(f"fields.{name}"),
                    record_id=node.id,
                )
            )
    return ok


def _dated_field_ok(node: RecordNode, value: Any, diags: list[Diagnostic]) -> bool:
    """A page's `fields.occurred_at` text must be a real date or a timestamp with its zone;
    an impossible one (`2026-02-30`) makes the page invalid, as it does a claim.
    A value that is not text at all is the field check's finding, not this one's."""
    if not isinstance(value, str):
        return True
    try:
        dates.parse_date_or_timestamp(value)
    except dates.DateFormatError as exc:
        diags.append(
            dg.make(
                "date-invalid",
                node.path,
                f"fields.{DATED_FIELD}: {exc}",
                line=node.key_lines.get(f"fields.{DATED_FIELD}", node.key_lines.get("fields")),
                record_id=node.id,
            )
        )
        return False
    return True


def _field_problem(kind: str, allowed: list[str] | None, value: Any) -> str | None:
    if kind == "string":
        if not isinstance(value, str):
            return f"expected text, found {_type_name(value)}"
        if allowed is not None and value not in allowed:
            return f"{value!r} is not one of {', '.join(allowed)}"
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"expected a number, found {_type_name(value)}"
    elif kind == "boolean":
        if not isinstance(value, bool):
            return f"expected true or false, found {_type_name(value)}"
    elif kind == "string-array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"expected a list of text values, found {_type_name(value)}"
        if allowed is not None:
            bad = [v for v in value if v not in allowed]
            if bad:
                return f"{', '.join(map(repr, bad))} not among {', '.join(allowed)}"
    return None


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "text"
