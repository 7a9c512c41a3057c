"""The shipped example extension, `examples/recipe-gem/recipes.py` (issue 16, "Done when"): run
as a person would run it against a vault where its manifest is installed, it is refused until
its switches are on, then rates a dish and files the recipe — once, however often it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from tests.vaultkit import VaultKit

REPO = Path(__file__).resolve().parents[1]
GEM = REPO / "examples" / "recipe-gem"
GRANTS = ("facts.read:self:pref.food.*", "facts.write:self:pref.food.*", "collections.create")


def recipes(root: Path, dish: str, recipe: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, str(GEM / "recipes.py"), str(root), "--dish", dish, "--recipe", recipe],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_the_recipe_gem_rates_a_dish_and_files_its_recipe_once(
    kit: VaultKit, capsys: pytest.CaptureFixture[str]
) -> None:
    kit.page("private/people/me.md", "pg_me", "Me", type="person", aliases=["knowledge:self"])
    root = str(kit.root)
    assert main(["extensions", root, "install", str(GEM / "manifest.json")]) == 0
    refused = recipes(kit.root, "Tomato beef stew", "Brown the beef.")
    assert refused.returncode == 1
    assert "lacks knowledge permission" in refused.stderr
    for permission in GRANTS:
        assert main(["extensions", root, "grant", "recipes", permission]) == 0
    capsys.readouterr()

    first = recipes(kit.root, "Tomato beef stew", "Brown the beef.\n\nBraise two hours.")
    assert first.returncode == 0, first.stderr
    done = json.loads(first.stdout)
    assert (done["fact"], done["doc"], done["alreadyRated"]) == ("applied", "created", False)
    filed = list((kit.root / "private" / "collections").rglob("*.md"))
    assert len(filed) == 1
    assert "Braise two hours." in filed[0].read_text()

    again = json.loads(recipes(kit.root, "Tomato beef stew", "Brown the beef.\n\nBraise two hours.").stdout)
    assert (again["fact"], again["doc"], again["alreadyRated"]) == ("duplicate", "unchanged", True)
    assert again["foodPreferences"] == ["Tomato beef stew"]
    assert len(list((kit.root / "private" / "collections").rglob("*.md"))) == 1
