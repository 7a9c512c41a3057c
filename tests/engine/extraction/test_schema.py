"""The shape check itself (spec: knowledge-entities-extraction.md, "Shape"): it accepts
what the extractor writes and refuses documents that break the contract."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from knowledge_desktop.engine.extraction import validate
from tests.repokit import RepoKit


def sample(rk: RepoKit) -> dict[str, Any]:
    rk.write("adr/0001.md", "---\nstatus: accepted\naliases: [ADR-1]\n---\n# One\n")
    rk.commit("feat(x)!: one")
    return rk.extract()


def test_the_extractors_output_validates(rk: RepoKit) -> None:
    model = validate(sample(rk))
    assert [e.kind for e in model.entities] == ["change", "decision"]


@pytest.mark.parametrize(
    "breakage",
    [
        lambda d: d["entities"][0].update(evidence=[]),
        lambda d: d["entities"][0].update(kind="fact"),
        lambda d: d["entities"][0].update(id="x" * 257),
        lambda d: d["entities"][0].update(aliases=[f"a{n}" for n in range(33)]),
        lambda d: d["entities"][0].update(links=[{"kind": "affected-path", "target": "a"}] * 65),
        lambda d: d["entities"][1]["evidence"][0].update(regionHash="nope"),
        lambda d: d["entities"][1]["evidence"][0].pop("lineStart"),
        lambda d: d["entities"][1]["evidence"][0].update(line_start=1),
        lambda d: d["entities"][0]["evidence"].append({"kind": "commit", "sha": "abc"}),
        lambda d: d.update(schemaVersion=2),
        lambda d: d.update(memoryRelations=[]),
        lambda d: d.update(
            memoryRelations=[
                {
                    "kind": "memory-supports",
                    "candidateId": "c",
                    "target": "decision:elsewhere",
                    "evidence": {"kind": "id", "value": "v", "factHash": "0" * 64},
                }
            ]
        ),
        lambda d: d["entities"].append(copy.deepcopy(d["entities"][0])),
    ],
)
def test_broken_documents_are_refused(rk: RepoKit, breakage: Any) -> None:
    doc = sample(rk)
    breakage(doc)
    with pytest.raises((ValidationError, ValueError)):
        validate(doc)
