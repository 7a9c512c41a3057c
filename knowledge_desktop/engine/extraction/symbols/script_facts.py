"""A TypeScript or JavaScript module's exports, read with tree-sitter's grammars.

Exported are the declarations an `export` statement carries (functions,
classes, `const`/`let`/`var` bindings, interfaces, type aliases, enums,
namespaces), the local names an `export { a, b as c }` clause lists, and the
default export, named by its declaration (`export default class Foo` is
`Foo`; an anonymous one is `default`). `export { x } from "./m"`,
`export * as ns from "./m"` and a clause re-exporting an imported name are
*forwarding*: the module passes on what another declares (spec:
knowledge-entities-extraction.md, "Extraction and identity"). A bare
`export * from "./m"` names nothing here and is left to the module it points at.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from knowledge_desktop.engine.extraction.symbols.model import ModuleFacts, Symbol, region_hash

_DECLARATION_KINDS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "namespace",
    "module": "namespace",
}
_BINDINGS = ("lexical_declaration", "variable_declaration")
_MAX_ERRORS_SHOWN = 1

LANGUAGES = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx"}
LANGUAGES.update(dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"))


@cache
def _parser(language: str) -> Any:
    """One parser per grammar, built on first use (the grammars are only loaded when a
    repository has such files)."""
    from tree_sitter import Language, Parser

    if language == "javascript":
        import tree_sitter_javascript as grammar

        return Parser(Language(grammar.language()))
    import tree_sitter_typescript as ts_grammar

    raw = ts_grammar.language_tsx() if language == "tsx" else ts_grammar.language_typescript()
    return Parser(Language(raw))


def script_facts(language: str, data: bytes, lines: list[bytes], facts: ModuleFacts) -> None:
    """Fill `facts.symbols`; a file tree-sitter could only partly parse is a problem noted
    with its first error's line (what was parsed is still used)."""
    tree = _parser(language).parse(data)
    root = tree.root_node
    if root.has_error:
        line = _first_error_line(root)
        facts.problems.append(("syntax-error", f"line {line}: the file does not parse as {language}"))
    declared: dict[str, tuple[str, Any]] = {}
    imported: dict[str, tuple[str, Any]] = {}
    for node in root.named_children:
        _collect(node, declared, imported)
    seen: set[str] = set()

    def add(symbol: Symbol) -> None:
        if symbol.name not in seen:
            seen.add(symbol.name)
            facts.symbols.append(symbol)

    for node in root.named_children:
        if node.type != "export_statement":
            continue
        is_default = any(c.type == "default" for c in node.children if not c.is_named)
        source = node.child_by_field_name("source")
        origin = _string(source) if source is not None else None
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        if declaration is not None:
            for name, kind in _declared_names(declaration):
                add(_symbol(name, kind, node, lines))
            if is_default and not _declared_names(declaration):
                add(_symbol("default", "default", node, lines))
        elif is_default:
            if value is not None and value.type == "identifier":
                name = _text(value)
                add(_from_local(name, "default", node, declared, imported, lines))
            else:
                named = value.child_by_field_name("name") if value is not None else None
                add(_symbol(_text(named) if named is not None else "default", "default", node, lines))
        for clause in node.named_children:
            if clause.type == "export_clause":
                for spec in clause.named_children:
                    if spec.type != "export_specifier":
                        continue
                    local = _text(spec.child_by_field_name("name"))
                    alias = spec.child_by_field_name("alias")
                    shown = _text(alias) if alias is not None else local
                    if origin is not None:
                        add(_symbol(shown, "variable", node, lines, origin))
                    else:
                        add(_from_local(local, None, node, declared, imported, lines, shown))
            elif clause.type == "namespace_export" and origin is not None:
                names = [c for c in clause.named_children if c.type in ("identifier", "string")]
                if names:
                    add(_symbol(_text(names[0]), "namespace", node, lines, origin))


def _collect(node: Any, declared: dict[str, tuple[str, Any]], imported: dict[str, tuple[str, Any]]) -> None:
    """Top-level declarations (exported or not) and imported names, by local name."""
    target = node.child_by_field_name("declaration") if node.type == "export_statement" else node
    if target is not None:
        for name, kind in _declared_names(target):
            declared.setdefault(name, (kind, target))
    if node.type == "import_statement":
        source = node.child_by_field_name("source")
        origin = _string(source) if source is not None else ""
        for ident in _walk_import_names(node):
            imported.setdefault(ident, (origin, node))


def _walk_import_names(node: Any) -> list[str]:
    out: list[str] = []
    for child in node.named_children:
        if child.type == "import_clause":
            for part in child.named_children:
                if part.type == "identifier":
                    out.append(_text(part))
                elif part.type == "namespace_import":
                    out += [_text(c) for c in part.named_children if c.type == "identifier"]
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        if spec.type == "import_specifier":
                            alias = spec.child_by_field_name("alias")
                            out.append(
                                _text(alias if alias is not None else spec.child_by_field_name("name"))
                            )
    return out


def _declared_names(node: Any) -> list[tuple[str, str]]:
    if node.type == "ambient_declaration":
        return [n for child in node.named_children for n in _declared_names(child)]
    kind = _DECLARATION_KINDS.get(node.type)
    if kind is not None:
        name = node.child_by_field_name("name")
        return [(_text(name), kind)] if name is not None else []
    if node.type in _BINDINGS:
        constant = any(c.type == "const" for c in node.children if not c.is_named)
        out = []
        for declarator in node.named_children:
            if declarator.type == "variable_declarator":
                name = declarator.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    out.append((_text(name), "constant" if constant else "variable"))
        return out
    return []


def _from_local(
    local: str,
    kind: str | None,
    export: Any,
    declared: dict[str, tuple[str, Any]],
    imported: dict[str, tuple[str, Any]],
    lines: list[bytes],
    shown: str | None = None,
) -> Symbol:
    """An exported local name: declared here (its declaration's region), imported
    (forwarding, the export statement's region), or unknown (the export statement)."""
    name = shown or local
    if local in declared:
        found_kind, node = declared[local]
        return _symbol(name, kind or found_kind, node, lines)
    if local in imported:
        origin, _node = imported[local]
        return _symbol(name, kind or "variable", export, lines, origin)
    return _symbol(name, kind or "variable", export, lines)


def _symbol(name: str, kind: str, node: Any, lines: list[bytes], origin: str | None = None) -> Symbol:
    start, end = node.start_point[0] + 1, node.end_point[0] + 1
    if node.end_point[1] == 0 and end > start:  # a node that ends at a line's start
        end -= 1
    return Symbol(name, kind, start, end, region_hash(lines, start, end), origin is not None, origin)


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace") if node is not None else ""


def _string(node: Any) -> str:
    fragments = [c for c in node.named_children if c.type == "string_fragment"]
    return _text(fragments[0]) if fragments else _text(node).strip("\"'`")


def _first_error_line(root: Any) -> int:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return int(node.start_point[0]) + 1
        if node.has_error:
            stack.extend(reversed(node.children))
    return 1
