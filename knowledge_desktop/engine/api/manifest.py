"""Extension manifests: `{"name", "description", "knowledge": {"permissions", "predicates",
"reason"}}` (issue 16 §2; spec: facts-entities-collections-api, "Requesting in the manifest").

Validation lists every mistake at once, the way the spec's install checks do,
so whoever writes a manifest fixes it in one pass. Keys we do not use
(`kind`, `entry`, `tools`, …) are kept in `Manifest.raw` and ignored. A hand
validator rather than a pydantic model: each rule's message names the JSON
path and says what to write instead, and a rule that spans fields (a
`facts.write` needs a `facts.read` that covers it) sits beside the others.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api.permissions import (
    Permission,
    PermissionSyntaxError,
    covers,
    parse_permission,
    predicate_problem,
)
from knowledge_desktop.engine.api.predicates import CORE_PREDICATES, PredicateDef
from knowledge_desktop.engine.errors import ManifestInvalid

NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
"""An extension's name: lowercase words joined by single hyphens (it is written into
`extension:<name>` origins and typed on the command line)."""
MAX_NAME = 64
MAX_DESCRIPTION = 200
"""The manifest's and each declared predicate's description (spec: at most 200 characters)."""
MAX_REASON = 1000
MAX_ALIAS = 100
MAX_MANIFEST_BYTES = 1024 * 1024
_CORE_NAMES = frozenset(d.name for d in CORE_PREDICATES)


@dataclass(frozen=True, slots=True)
class Manifest:
    """A valid manifest: what the install screen shows and the grants start from."""

    name: str
    description: str
    permissions: tuple[Permission, ...]
    predicates: tuple[PredicateDef, ...]
    reason: str | None
    raw: dict[str, Any] = field(compare=False)


def _text(value: object, where: str, errors: list[str], *, limit: int, required: bool = True) -> str | None:
    if value is None:
        if required:
            errors.append(f"{where}: required")
        return None
    if not isinstance(value, str):
        errors.append(f"{where}: must be text")
        return None
    if not value.strip():
        errors.append(f"{where}: must not be empty")
        return None
    if len(value) > limit:
        errors.append(f"{where}: at most {limit} characters (it has {len(value)})")
    return value


def _name(value: object, errors: list[str]) -> str | None:
    name = _text(value, "name", errors, limit=MAX_NAME)
    if name is not None and (len(name) < 2 or not NAME.match(name)):
        errors.append(
            "name: 2-64 lowercase letters and digits, words joined by single hyphens, starting with a letter"
        )
    return name


def _permissions(value: object, errors: list[str]) -> list[Permission]:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append("knowledge.permissions: must be a list of permission strings")
        return []
    found: list[Permission] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        where = f"knowledge.permissions[{i}]"
        try:
            p = parse_permission(item)
        except PermissionSyntaxError as exc:
            errors.append(f"{where}: {exc}")
            continue
        if str(p) in seen:
            errors.append(f"{where}: {p} is listed twice")
            continue
        seen.add(str(p))
        found.append(p)
    for p in found:
        if p.name == "facts.write" and not any(
            r.name == "facts.read" and covers(r, _as_read(p)) for r in found
        ):
            errors.append(
                f"knowledge.permissions: {p} must be covered by a facts.read"
                f" (add facts.read:{p.scope}:{p.prefix} or a wider prefix)"
            )
    return found


def _as_read(p: Permission) -> Permission:
    return Permission("facts", "read", p.scope, p.prefix)


def _aliases(value: object, where: str, errors: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        errors.append(f"{where}: must be a list of texts")
        return ()
    found: list[str] = []
    for j, alias in enumerate(value):
        text = _text(alias, f"{where}[{j}]", errors, limit=MAX_ALIAS)
        if text is None:
            continue
        if "\n" in text or "\r" in text:
            errors.append(f"{where}[{j}]: one line, no line breaks")
        elif text in found:
            errors.append(f"{where}[{j}]: {text!r} is listed twice")
        else:
            found.append(text)
    return tuple(found)


def _predicates(value: object, errors: list[str]) -> list[PredicateDef]:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append("knowledge.predicates: must be a list of predicate declarations")
        return []
    found: list[PredicateDef] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        where = f"knowledge.predicates[{i}]"
        if not isinstance(item, dict):
            errors.append(f"{where}: must be an object with predicate, cardinality and description")
            continue
        ok = True
        name = item.get("predicate")
        if name is None:
            errors.append(f"{where}.predicate: required")
            ok = False
        else:
            if not isinstance(name, str):
                problem: str | None = "must be text"
            elif "*" in name:
                problem = "a declared predicate is a full name, without '*'"
            else:
                problem = predicate_problem(name)
            if problem:
                errors.append(f"{where}.predicate: {problem}")
                ok = False
            elif name in _CORE_NAMES:
                errors.append(f"{where}.predicate: {name} is a core predicate; use it without declaring it")
                ok = False
            elif name in seen:
                errors.append(f"{where}.predicate: {name} is declared twice")
                ok = False
        card = item.get("cardinality")
        if card not in ("one", "many"):
            errors.append(f"{where}.cardinality: one or many" + ("" if card is not None else " (required)"))
            ok = False
        description = _text(item.get("description"), f"{where}.description", errors, limit=MAX_DESCRIPTION)
        aliases = _aliases(item.get("aliases"), f"{where}.aliases", errors)
        if description is None or (len(description) > MAX_DESCRIPTION):
            ok = False
        if ok and isinstance(name, str) and card in ("one", "many") and description is not None:
            seen.add(name)
            found.append(PredicateDef(name, card, description, aliases))
    return found


def manifest_errors(data: object) -> tuple[Manifest | None, list[str]]:
    """Every install-check failure of `data` (a parsed JSON value), and the manifest when there
    are none."""
    errors: list[str] = []
    if not isinstance(data, dict):
        return None, ["the manifest must be a JSON object"]
    name = _name(data.get("name"), errors)
    description = _text(data.get("description"), "description", errors, limit=MAX_DESCRIPTION)
    knowledge = data.get("knowledge")
    if knowledge is None:
        knowledge = {}
    if not isinstance(knowledge, dict):
        errors.append("knowledge: must be an object with permissions, predicates and reason")
        knowledge = {}
    permissions = _permissions(knowledge.get("permissions"), errors)
    predicates = _predicates(knowledge.get("predicates"), errors)
    reason = _text(knowledge.get("reason"), "knowledge.reason", errors, limit=MAX_REASON, required=False)
    if errors or name is None or description is None:
        return None, errors
    return Manifest(name, description, tuple(permissions), tuple(predicates), reason, dict(data)), []


def validate_manifest(data: object) -> Manifest:
    """The manifest `data` holds, or `ManifestInvalid` listing every error."""
    manifest, errors = manifest_errors(data)
    if manifest is None:
        raise ManifestInvalid(errors)
    return manifest


def load_manifest(path: Path) -> Manifest:
    """Read and validate a manifest file; unreadable or non-JSON files are `ManifestInvalid` too,
    naming the path."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise ManifestInvalid([f"{path}: cannot be read ({exc.strerror or exc})"]) from exc
    if len(data) > MAX_MANIFEST_BYTES:
        raise ManifestInvalid([f"{path}: larger than {MAX_MANIFEST_BYTES} bytes"])
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestInvalid([f"{path}: not JSON ({exc})"]) from exc
    except RecursionError as exc:
        raise ManifestInvalid([f"{path}: nested too deeply to be a manifest"]) from exc
    manifest, errors = manifest_errors(parsed)
    if manifest is None:
        raise ManifestInvalid([f"{path}: {e}" for e in errors])
    return manifest
