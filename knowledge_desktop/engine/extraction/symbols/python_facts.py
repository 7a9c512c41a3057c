"""A Python module's exported names, read with the standard library's `ast`.

What a module exports: the names in a literal `__all__` when it has one, else
its public top-level classes, functions and assignments (a leading `_` keeps a
name private, as Python's own `from m import *` does). A name the module only
imports is not declared there: listed in `__all__`, or imported by a package's
`__init__.py`, it is exported as *forwarding*, so that a concept resolves to
the module that declares it before the package that passes it on (spec:
knowledge-entities-extraction.md, "Extraction and identity").
"""

from __future__ import annotations

import ast
import warnings

from knowledge_desktop.engine.extraction.symbols.model import ModuleFacts, Symbol, region_hash


def python_facts(path: str, data: bytes, lines: list[bytes], facts: ModuleFacts) -> None:
    """Fill `facts.symbols` from the module's source; a syntax error is a problem, not a crash."""
    try:
        with warnings.catch_warnings():  # invalid escapes in old code are not our concern
            warnings.simplefilter("ignore")
            tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        facts.problems.append(
            ("syntax-error", f"line {line}: {exc.__class__.__name__}" if line else str(exc))
        )
        return
    declared: dict[str, tuple[str, ast.stmt]] = {}
    imported: dict[str, tuple[str, ast.stmt]] = {}
    exported: list[str] | None = None
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            declared[node.name] = ("class", node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            declared[node.name] = ("function", node)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in _names(target):
                    if name == "__all__":
                        exported = _literal_names(node.value)
                    else:
                        declared[name] = ("constant" if name.isupper() else "variable", node)
        elif isinstance(node, ast.ImportFrom):
            origin = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    imported[alias.asname or alias.name] = (origin, node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported[alias.asname or alias.name.split(".")[0]] = (alias.name, node)
    package_init = path.rsplit("/", 1)[-1] == "__init__.py"
    if exported is None:
        names = [n for n in declared if not n.startswith("_")]
        if package_init:
            names += [
                n
                for n, (origin, _node) in imported.items()
                if origin.startswith(".") and not n.startswith("_")
            ]
    else:
        names = exported
    for name in dict.fromkeys(names):
        if name in declared:
            kind, node = declared[name]
            start, end = _span(node)
            facts.symbols.append(Symbol(name, kind, start, end, region_hash(lines, start, end)))
        elif name in imported:
            origin, node = imported[name]
            start, end = _span(node)
            facts.symbols.append(
                Symbol(
                    name,
                    "variable",
                    start,
                    end,
                    region_hash(lines, start, end),
                    forwarding=True,
                    origin=origin,
                )
            )
        else:  # in `__all__` but bound nowhere we can see (a star import, a loop)
            facts.problems.append(("export-unresolved", f"{name!r} is in __all__ but not bound at top level"))


def _span(node: ast.stmt) -> tuple[int, int]:
    """The statement's lines, decorators included."""
    start = node.lineno
    for decorator in getattr(node, "decorator_list", []):
        start = min(start, decorator.lineno)
    return start, node.end_lineno or node.lineno


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _names(elt)]
    return []


def _literal_names(value: ast.expr | None) -> list[str] | None:
    """The strings of a literal list or tuple; None when `__all__` is computed (then the
    public names are used instead, as if it were absent)."""
    if isinstance(value, ast.List | ast.Tuple) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
    ):
        return [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None
