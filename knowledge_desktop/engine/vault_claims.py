"""A vault's current claims as the memory candidates of entity extraction.

Spec: knowledge-entities-extraction.md ("Memory relations"): the candidates
are supplied by the caller. Issue 17 makes them the vault's current claims:
the body is the fact, the claim's `entities` and evidence paths its explicit
references. The extraction package sits beside `vault` and must not read it,
so this small bridge sits above both; the CLI (`knowledge entities --vault`)
and the window's Repository pane share it. `pages_named` goes the other way:
the vault pages a concept's name is the title or alias of.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowledge_desktop.engine.extraction import MemoryCandidate
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault

PAGE = 1000


def vault_claims(vault: Vault) -> list[MemoryCandidate]:
    """Every current claim with a body and an id, in the vault's record order."""
    out: list[MemoryCandidate] = []
    offset: int | None = 0
    while offset is not None:
        page = vault.records(RecordFilter(kind="claim"), limit=PAGE, offset=offset)
        for item in page["items"]:
            if not item["id"]:
                continue
            view = vault.show(item["path"])
            if view["body"] is None:
                continue
            fm = view["frontmatter"] or {}
            refs = [e for e in fm.get("entities") or [] if isinstance(e, str)]
            refs += [
                ev["path"]
                for ev in fm.get("evidence") or []
                if isinstance(ev, dict) and isinstance(ev.get("path"), str)
            ]
            out.append(MemoryCandidate(item["id"], view["body"], tuple(refs), item["path"]))
        offset = page["nextOffset"]
    return out


def pages_named(vault: Vault, names: Iterable[str]) -> dict[str, list[str]]:
    """Each name → the ids of the current pages whose title or alias it is exactly (the
    vault's own lookup: one page, or all the pages that share the name). The Repository
    pane uses it to show, on a vault page, the repository concept of the same name."""
    out: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        found = vault.lookup(name, RecordFilter(kind="page"))
        if found["status"] == "found":
            out[name] = [found["record"]["id"]]
        elif found["status"] == "ambiguous":
            out[name] = [c["id"] for c in found["candidates"] if c.get("id")]
    return out
