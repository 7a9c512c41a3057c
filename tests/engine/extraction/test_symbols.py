"""Code-symbol discovery and the links documentation makes to it (issue 31; spec:
knowledge-entities-extraction.md, "Shape", "Extraction and identity", "Bounds and
coverage"): what a Python or TypeScript module exports, which module owns a concept's
name, what a change touched, and coverage that says what was not read."""

from __future__ import annotations

import hashlib
from typing import Any

from knowledge_desktop.engine.extraction import to_json, validate
from knowledge_desktop.engine.extraction.symbols.discovery import discover_symbols
from knowledge_desktop.engine.extraction.symbols.model import module_id, symbol_id
from tests.repokit import RepoKit, codes, entity


def _symbols(rk: RepoKit, path: str) -> dict[str, dict[str, Any]]:
    snapshot = discover_symbols(rk.root).as_json()
    (module,) = [m for m in snapshot["facts"] if m["path"] == path]
    return {s["name"]: s for s in module["symbols"]}


def test_python_exports_public_top_level_names_with_exact_regions(rk: RepoKit) -> None:
    text = (
        "import os\n\n\n@decorate\nclass Vault:\n    pass\n\n\n"
        "def open_vault(p):\n    return p\n\nLIMIT = 3\n_private = 1\ncount: int = 0\n"
    )
    rk.write("pkg/vault.py", text)
    got = _symbols(rk, "pkg/vault.py")
    assert sorted(got) == ["LIMIT", "Vault", "count", "open_vault"]
    assert (got["Vault"]["kind"], got["Vault"]["lineStart"], got["Vault"]["lineEnd"]) == ("class", 4, 6)
    lines = text.encode().splitlines(keepends=True)
    assert got["Vault"]["regionHash"] == hashlib.sha256(b"".join(lines[3:6])).hexdigest()
    assert (got["LIMIT"]["kind"], got["count"]["kind"]) == ("constant", "variable")
    assert got["open_vault"]["id"] == symbol_id("pkg/vault.py", "open_vault")
    assert not any(s["forwarding"] for s in got.values())


def test_python_all_decides_and_a_package_init_forwards(rk: RepoKit) -> None:
    rk.write("pkg/core.py", "__all__ = ['Kept']\n\nclass Kept: ...\nclass Dropped: ...\n")
    rk.write("pkg/__init__.py", "from .core import Kept\nfrom .core import _Hidden\n")
    assert sorted(_symbols(rk, "pkg/core.py")) == ["Kept"]
    init = _symbols(rk, "pkg/__init__.py")
    assert sorted(init) == ["Kept"]
    assert (init["Kept"]["forwarding"], init["Kept"]["from"]) == (True, ".core")


def test_typescript_exports_declarations_defaults_and_re_exports(rk: RepoKit) -> None:
    rk.write(
        "src/store.ts",
        "import { helper } from './util';\n"
        "const local = 1;\n"
        "export function openStore(a: number) {}\n"
        "export const A = 1, b = 2;\n"
        "export interface Options {}\n"
        "export type Id = string;\n"
        "export enum Mode { Read }\n"
        "export default class Store {}\n"
        "export { local as renamed, helper };\n"
        "export { Other } from './other';\n"
        "export * from './everything';\n",
    )
    got = _symbols(rk, "src/store.ts")
    assert sorted(got) == [
        "A",
        "Id",
        "Mode",
        "Options",
        "Other",
        "Store",
        "b",
        "helper",
        "openStore",
        "renamed",
    ]
    kinds = {n: s["kind"] for n, s in got.items()}
    assert kinds["openStore"] == "function"
    assert kinds["Store"] == "class"
    assert kinds["Options"] == "interface"
    assert (kinds["A"], kinds["Id"], kinds["Mode"]) == ("constant", "type", "enum")
    assert got["renamed"]["lineStart"] == 2
    assert not got["renamed"]["forwarding"]
    assert (got["helper"]["forwarding"], got["helper"]["from"]) == (True, "./util")
    assert (got["Other"]["forwarding"], got["Other"]["from"]) == (True, "./other")


def test_javascript_anonymous_default_is_named_default(rk: RepoKit) -> None:
    rk.write("lib/a.js", "export default function () {}\nexport class Widget {}\n")
    assert sorted(_symbols(rk, "lib/a.js")) == ["Widget", "default"]


def test_broken_code_is_partial_coverage_never_a_crash(rk: RepoKit) -> None:
    rk.write("bad.py", "def f(:\n")
    rk.write("bad.ts", "export function (((\n")
    rk.write("bin.py", b"\x00\x01\x02")
    rk.write("node_modules/dep/index.js", "export const x = 1;\n")
    rk.write("app.min.js", "export const y = 1;\n")
    snapshot = discover_symbols(rk.root).as_json()
    assert [m["path"] for m in snapshot["facts"]] == ["bad.py", "bad.ts", "bin.py"]
    assert snapshot["coverage"]["status"] == "partial"
    by_path = {(r["code"], r["path"]) for r in snapshot["coverage"]["reasons"]}
    assert {("syntax-error", "bad.py"), ("syntax-error", "bad.ts"), ("file-unread", "bin.py")} <= by_path
    assert "line 1" in next(r["detail"] for r in snapshot["coverage"]["reasons"] if r["path"] == "bad.py")


def test_a_concept_defines_the_symbol_of_its_unique_declaring_owner(rk: RepoKit) -> None:
    rk.write(
        "docs/glossary.md", "# Glossary\n\n**Vault**: the folder a person opens.\n\n**Ledger**: a log.\n"
    )
    rk.write("src/vault.py", "class Vault:\n    pass\n")
    rk.write("src/__init__.py", "from .vault import Vault\n")
    rk.write("src/ledger.py", "class Ledger: ...\n")
    rk.write("other/ledger.ts", "export class Ledger {}\n")
    doc = rk.extract(history=False)
    validate(doc)
    vault = entity(doc, "concept:Vault")
    assert vault["links"] == [
        {"kind": "defines-symbol", "target": module_id("src/vault.py"), "symbol": "Vault"}
    ]
    assert {"kind": "fact", "factId": symbol_id("src/vault.py", "Vault")} in vault["evidence"]
    ledger = entity(doc, "concept:Ledger")
    assert ledger["links"] == []
    assert "ambiguous-symbol" in codes(doc, "symbols")
    assert doc["coverage"]["symbols"]["status"] == "partial"


def test_symbol_names_match_exactly_and_case_sensitively(rk: RepoKit) -> None:
    rk.write("docs/glossary.md", "# Glossary\n\n**vault**: lower case.\n")
    rk.write("src/vault.py", "class Vault: ...\n")
    doc = rk.extract(history=False)
    assert entity(doc, "concept:vault")["links"] == []
    assert doc["coverage"]["symbols"]["status"] == "complete"


def test_a_commit_links_the_current_facts_of_the_paths_it_touched(rk: RepoKit) -> None:
    rk.write("src/a.py", "def a(): ...\n")
    rk.write("src/gone.py", "def g(): ...\n")
    rk.commit("add a and gone")
    (rk.root / "src/gone.py").unlink()
    rk.write("src/a.py", "def a(): return 1\n")
    sha = rk.commit("change a, drop gone")
    doc = rk.extract()
    change = entity(doc, f"commit:{sha}")
    assert {"kind": "affected-fact", "target": module_id("src/a.py")} in change["links"]
    assert {"kind": "affected-path", "target": "src/gone.py"} in change["links"]
    assert all(link["target"] != module_id("src/gone.py") for link in change["links"])


def test_the_same_repository_twice_gives_byte_identical_json(rk: RepoKit) -> None:
    rk.write("docs/glossary.md", "# Glossary\n\n**Store**: where records live.\n")
    rk.write("src/store.ts", "export default class Store {}\nexport const X = 1;\n")
    rk.write("py/store.py", "__all__ = ['make']\ndef make(): ...\n")
    first = to_json(rk.extract(history=False))
    assert to_json(rk.extract(history=False)) == first
    assert discover_symbols(rk.root).as_json() == discover_symbols(rk.root).as_json()


def test_rediscovery_parses_only_what_changed(rk: RepoKit) -> None:
    rk.write("a.py", "def a(): ...\n")
    rk.write("b.py", "def b(): ...\n")
    extractor = rk.extractor(history=False)
    extractor.extract()
    assert extractor.symbols.parsed == 2
    rk.write("b.py", "def b2(): ...\n")
    doc = extractor.extract()
    assert extractor.symbols.parsed == 1
    assert to_json(doc) == to_json(rk.extract(history=False))


def test_discovery_can_be_turned_off(rk: RepoKit) -> None:
    rk.write("a.py", "def a(): ...\n")
    doc = rk.extract(history=False, symbols=False)
    assert doc["coverage"]["symbols"]["status"] == "not-analyzed"
    assert codes(doc, "symbols") == {"symbols-not-requested"}


def test_code_in_other_languages_makes_coverage_partial(rk: RepoKit) -> None:
    rk.write("a.py", "def a(): ...\n")
    rk.write("tools/build.sh", "echo hi\n")
    rk.write("cmd/main.go", "package main\n")
    rk.write("cmd/util.go", "package main\n")
    snapshot = discover_symbols(rk.root).as_json()
    assert snapshot["coverage"]["status"] == "partial"
    assert [r["detail"] for r in snapshot["coverage"]["reasons"]] == [
        "Go: 2 files not read",
        "shell: 1 file not read",
    ]
