"""The YAML 1.2 read path (records-and-ontology, Records: frontmatter is YAML 1.2)."""

from __future__ import annotations

import json
import math
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_desktop.engine.records import yaml12


def test_core_schema_scalars() -> None:
    """YAML 1.2 core schema: only true/false are booleans; 1.1 words and dates are text."""
    data = yaml12.load(
        "a: yes\nb: on\nc: true\nd: 2026-09-28\ne: 0o17\nf: 0x1F\ng: 010\nh: ~\ni: 1.5e3\n"
        "j: .inf\nk: '123'\nl: !!str 5\nm: null\nn: False\n"
    ).data
    assert data == {
        "a": "yes",
        "b": "on",
        "c": True,
        "d": "2026-09-28",
        "e": 15,
        "f": 31,
        "g": 10,
        "h": None,
        "i": 1500.0,
        "j": math.inf,
        "k": "123",
        "l": "5",
        "m": None,
        "n": False,
    }


def test_merge_keys_are_ordinary_keys() -> None:
    """YAML 1.2 has no merge key: << is just a key."""
    assert yaml12.load("<<: x\n").data == {"<<": "x"}


def test_key_lines_cover_nested_mappings_and_lists() -> None:
    """Diagnostics need the line of nested keys and list items."""
    loaded = yaml12.load("a: 1\nfields:\n  status: x\nevidence:\n  - path: p\n  - url: u\n")
    assert loaded.key_lines == {
        "a": 0,
        "fields": 1,
        "fields.status": 2,
        "evidence": 3,
        "evidence.0": 4,
        "evidence.0.path": 4,
        "evidence.1": 5,
        "evidence.1.url": 5,
    }


def test_small_aliases_are_resolved() -> None:
    """Anchors and aliases are YAML; a modest reuse is accepted."""
    assert yaml12.load("a: &x [1, 2]\nb: *x\n").data == {"a": [1, 2], "b": [1, 2]}


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object/apply:os.system ['true']\n",
        "a: !!binary aGk=\n",
        "a: !custom 1\n",
        "? [a, b]\n: c\n",
        "a: *missing\n",
        "a: 1\na: 2\n",
    ],
)
def test_refused_constructs(text: str) -> None:
    """Hostile or non-JSON YAML (language tags, complex keys, duplicates) is refused."""
    with pytest.raises(yaml12.YamlError):
        yaml12.load(text)


def test_deep_nesting_is_refused() -> None:
    """Hostile YAML: absurd nesting is refused rather than recursed into."""
    with pytest.raises(yaml12.YamlError) as info:
        yaml12.load("a: " + "[" * 100 + "]" * 100 + "\n")
    assert info.value.code == "yaml-too-complex"


# Control characters and Unicode line separators are left out: PyYAML's writer and
# YAML 1.2 disagree about them, which is the writer's business, not ours.
text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20)
plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(text.filter(bool), plain, max_size=6))
def test_reads_back_json_and_block_yaml(data: dict[str, object]) -> None:
    """Round trip: JSON is YAML 1.2, so any JSON document reads back equal; block YAML
    from a writer does too wherever YAML 1.1 and 1.2 agree on plain scalars."""
    assert yaml12.load(json.dumps(data, ensure_ascii=False)).data == data
    block = yaml.safe_dump(data, allow_unicode=True)
    if not re.search(r"(?m)(?::|-) [-+.0-9][^'\"\n]*$|^[-+.0-9][^:'\"\n]*:", block):
        assert yaml12.load(block).data == data
