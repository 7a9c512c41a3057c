"""The recipe gem of facts-entities-collections-api ("Examples"), as a Python extension.

Install its manifest and turn its switches on, then run it:

    knowledge extensions VAULT install examples/recipe-gem/manifest.json
    knowledge extensions VAULT grant recipes 'facts.read:self:pref.food.*'
    knowledge extensions VAULT grant recipes 'facts.write:self:pref.food.*'
    knowledge extensions VAULT grant recipes collections.create
    python examples/recipe-gem/recipes.py VAULT --dish "Tomato beef stew" --recipe "Brown the beef…"

It remembers the dish as a `pref.food.rated` fact about the user, files the
recipe in its own "Recipes" collection (made on first use) under a key, so a
second run with the same dish updates that document instead of adding one,
and prints what it did as JSON. Every write is in one run, which the person
can revert in View Changes or with `knowledge revert VAULT --run RUN`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from knowledge_desktop.api import open_extension
from knowledge_desktop.api.extension import Extension
from knowledge_desktop.engine.errors import KnownError

NAME = "recipes"
COLLECTION = "Recipes"
RATED = "pref.food.rated"


def key_of(dish: str) -> str:
    """The document key of a dish: the same for the same dish, however it is capitalised."""
    return re.sub(r"[^a-z0-9]+", "-", dish.lower()).strip("-") or "dish"


def rate(ext: Extension, dish: str, recipe: str) -> dict[str, Any]:
    """Remember `dish` and file its `recipe`; the statuses of both writes."""
    liked = [entry.value for entry in ext.profile.get("pref.food")]
    known = [fact.value for fact in ext.facts.lookup("self", RATED)]
    cols = ext.collections.list()
    col = next((c for c in cols if c.name == COLLECTION), None) or ext.collections.create(COLLECTION)
    fact = ext.facts.put(RATED, dish, source_ref=f"recipes/{key_of(dish)}")
    doc = ext.documents.upsert(col.ref, key=key_of(dish), title=dish, body=recipe.rstrip() + "\n")
    return {
        "fact": fact.status,
        "doc": doc.status,
        "alreadyRated": dish in known,
        "foodPreferences": liked,
        "runId": ext.run_id,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Save a recipe you rated into your knowledge vault.")
    parser.add_argument("vault", help="the vault folder")
    parser.add_argument("--dish", required=True, help="the dish you rated highly")
    parser.add_argument("--recipe", required=True, help="its recipe, in Markdown")
    parser.add_argument("--run", help="the run id to write under (a new one by default)")
    args = parser.parse_args(argv)
    try:
        with open_extension(args.vault, NAME, args.run) as ext:
            result = rate(ext, args.dish, args.recipe)
    except KnownError as exc:  # not installed, a switch off, a quota: the person is told why
        print(f"recipes: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
