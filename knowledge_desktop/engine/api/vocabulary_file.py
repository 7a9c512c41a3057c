"""A partition's declared predicates, kept in `<partition>/predicates.yaml`.

The issue keeps declared predicates in "a vocabulary file of the partition",
never removed at uninstall (spec: Uninstall, point 4: facts may still use
them). A plain YAML file beside `ontology.yaml` travels with the partition
(a copy, a git pull, a backup) and a person can read it; the vault walker
ignores it (it reads only `*.md` and the ontology manifests), so it is never
an "Unrecognized" file. Written atomically by `declare`; read on every call
that resolves a hint, so an edit by hand counts at once.

    format: knowledge-predicates-v1
    predicates:
      - predicate: pref.food.rated
        cardinality: many
        description: Dishes you have rated highly ...
        aliases: [top-rated dishes]
        declared_by: [recipes]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from knowledge_desktop.engine.api.permissions import predicate_problem
from knowledge_desktop.engine.api.predicates import PredicateDef, Vocabulary
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.fs.atomic import write_atomic

FILE_NAME = "predicates.yaml"
FORMAT = "knowledge-predicates-v1"
MAX_FILE_BYTES = 4 * 1024 * 1024


class VocabularyError(ApiError):
    """The partition's vocabulary file cannot be read as one (bad YAML, a wrong shape)."""


def vocabulary_path(partition_dir: Path) -> Path:
    return partition_dir / FILE_NAME


def _entry(raw: object, where: str) -> PredicateDef:
    if not isinstance(raw, dict):
        raise VocabularyError(f"{where}: each predicate is a mapping")
    name = raw.get("predicate")
    problem = predicate_problem(name) if isinstance(name, str) else "predicate is missing"
    if problem:
        raise VocabularyError(f"{where}: {problem}")
    card = raw.get("cardinality")
    if card not in ("one", "many"):
        raise VocabularyError(f"{where}: cardinality of {name} is one or many")
    description = raw.get("description")
    aliases = raw.get("aliases") or []
    by = raw.get("declared_by") or []
    if not isinstance(description, str) or not isinstance(aliases, list) or not isinstance(by, list):
        raise VocabularyError(
            f"{where}: {name} needs a text description and lists of aliases and declared_by"
        )
    return PredicateDef(
        str(name),
        card,
        description,
        aliases=tuple(str(a) for a in aliases),
        declared_by=tuple(str(b) for b in by),
    )


def load_declared(partition_dir: Path) -> list[PredicateDef]:
    """The predicates declared in the partition, in file order; none when the file is absent."""
    path = vocabulary_path(partition_dir)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise VocabularyError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if len(data) > MAX_FILE_BYTES:
        raise VocabularyError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
    try:
        doc = yaml.safe_load(data.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise VocabularyError(f"{path}: not readable as YAML ({exc})") from exc
    if doc is None:
        return []
    if (
        not isinstance(doc, dict)
        or doc.get("format") != FORMAT
        or not isinstance(doc.get("predicates", []), list)
    ):
        raise VocabularyError(f"{path}: not a {FORMAT} file (format, then a list of predicates)")
    return [_entry(raw, f"{path}: predicates[{i}]") for i, raw in enumerate(doc.get("predicates") or [])]


def load_vocabulary(partition_dir: Path) -> Vocabulary:
    """The core predicates plus the partition's declared ones."""
    return Vocabulary(load_declared(partition_dir))


def declaration_problems(declared: Sequence[PredicateDef], vocabulary: Vocabulary) -> list[str]:
    """Why these declarations cannot join the vocabulary: a core predicate is used, not declared
    again; one already declared keeps its cardinality (facts already rely on it)."""
    problems = []
    for d in declared:
        existing = vocabulary.get(d.name)
        if existing is None:
            continue
        if existing.core:
            problems.append(f"predicate {d.name} is a core predicate: use it without declaring it")
        elif existing.cardinality != d.cardinality:
            problems.append(
                f"predicate {d.name} is already declared with cardinality {existing.cardinality}"
                f" (by {', '.join(existing.declared_by) or 'hand'}); it cannot become {d.cardinality}"
            )
    return problems


def declare(partition_dir: Path, declared: Sequence[PredicateDef], by: str) -> list[str]:
    """Add `declared` to the partition's file on behalf of extension `by`; the names newly added.
    A predicate declared before keeps its description and gains the new aliases and declarer.
    Call `declaration_problems` first: this raises `VocabularyError` on a conflict."""
    current = load_declared(partition_dir)
    problems = declaration_problems(declared, Vocabulary(current))
    if problems:
        raise VocabularyError("; ".join(problems))
    by_name = {d.name: d for d in current}
    added: list[str] = []
    for d in declared:
        old = by_name.get(d.name)
        if old is None:
            by_name[d.name] = PredicateDef(d.name, d.cardinality, d.description, d.aliases, declared_by=(by,))
            added.append(d.name)
            continue
        aliases = old.aliases + tuple(a for a in d.aliases if a not in old.aliases)
        who = old.declared_by + (() if by in old.declared_by else (by,))
        by_name[d.name] = PredicateDef(old.name, old.cardinality, old.description, aliases, declared_by=who)
    if not declared:
        return added
    rows: list[dict[str, Any]] = [
        {
            "predicate": d.name,
            "cardinality": d.cardinality,
            "description": d.description,
            "aliases": list(d.aliases),
            "declared_by": list(d.declared_by),
        }
        for d in by_name.values()
    ]
    text = "# Predicates declared by extensions (docs/decisions.md); kept after an uninstall.\n"
    text += yaml.safe_dump({"format": FORMAT, "predicates": rows}, sort_keys=False, allow_unicode=True)
    write_atomic(vocabulary_path(partition_dir), text.encode("utf-8"))
    return added
