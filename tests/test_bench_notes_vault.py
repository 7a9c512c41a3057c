"""`bench/generate_vault.py --notes N` (issue 25, §8): a deterministic Obsidian-style vault of N
plain notes — root notes, daily notes, duplicate names, every Obsidian link form, attachments,
`.obsidian/` and `.trash/` beside them — that the engine scans. The benchmark itself runs at
10k and 100k notes in bench/; here a small one is checked for what it promises."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

from knowledge_desktop.engine.vault import Vault

GENERATOR = Path(__file__).resolve().parents[1] / "bench" / "generate_vault.py"


def generate(out: Path, notes: int, *extra: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), str(out), "--notes", str(notes), *extra],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert isinstance(summary, dict)
    return summary


def digest(root: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != ".bench-vault.json"):
        sha.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()


def test_a_notes_vault_is_what_it_says_and_the_same_for_a_seed(tmp_path: Path) -> None:
    summary = generate(tmp_path / "a", 300)
    generate(tmp_path / "b", 300)
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    root = tmp_path / "a"
    notes = sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*.md") if not p.parts[-2].startswith(".")
    )
    notes = [n for n in notes if not n.startswith((".trash/", ".obsidian/"))]
    assert len(notes) == summary["notes"] == 300
    assert summary["mode"] == "notes"
    assert sum("/" not in n for n in notes) == summary["root"] > 0
    assert any(re.fullmatch(r"Daily/\d{4}-\d{2}-\d{2}\.md", n) for n in notes)
    assert any(re.fullmatch(r"journals/\d{4}_\d{2}_\d{2}\.md", n) for n in notes)
    stems = [n.rsplit("/", 1)[-1].lower() for n in notes]
    assert len(set(stems)) < len(stems)  # duplicate names in other folders
    text = "\n".join((root / n).read_text("utf-8") for n in notes)
    for form in (
        r"\[\[[^\]|#]+\]\]",  # [[Name]]
        r"\[\[[^\]]+\|[^\]]+\]\]",  # [[Name|shown]]
        r"\[\[[^\]#]+/[^\]#]+\]\]",  # [[Folder/Name]]
        r"\[\[[^\]]+#[^\]^]+\]\]",  # [[Name#Heading]]
        r"\[\[[^\]]+#\^b[0-9a-f]+\]\]",  # [[Name#^block]]
        r"!\[\[[^\]]+\.md\]\]|!\[\[[^\].]+\]\]",  # ![[Note]]
        r"!\[\[[^\]]+\.png\]\]",  # ![[image.png]]
        r"!\[[^\]]*\]\([^)]+\.png\)",  # ![alt](path.png)
        r"\]\([^)]*%20[^)]*\.md\)",  # [text](Some%20Note.md)
        r"\[\[[^\]]+\.pdf\]\]",  # a PDF attachment
        r"(?m)^aliases: ",
        r"(?m)^\w+:: ",  # Logseq properties
        r" #[a-z]+/[a-z]+",  # nested inline tags
        r"\^b[0-9a-f]+$",  # block ids
    ):
        assert re.search(form, text, re.MULTILINE), form
    assert summary["missing"] > 0
    assert (root / ".obsidian" / "app.json").is_file()


def test_the_engine_scans_a_notes_vault_without_what_obsidian_keeps(tmp_path: Path) -> None:
    generate(tmp_path, 200)
    with Vault.open(tmp_path) as vault:
        change = vault.reconcile()
        paths = {row[0] for row in vault.store.reader().execute("SELECT path FROM catalog")}
    assert change.parsed == len(paths) == 200
    assert not [p for p in paths if p.startswith((".trash/", ".obsidian/"))]


def test_refuses_a_count_below_one_and_a_folder_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "mine.md").write_text("# mine\n")
    for argv in (["--notes", "0"], ["--notes", "5"]):
        done = subprocess.run(
            [sys.executable, str(GENERATOR), str(tmp_path), *argv],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
    assert (tmp_path / "mine.md").read_text() == "# mine\n"
