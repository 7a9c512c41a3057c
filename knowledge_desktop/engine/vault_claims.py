"""A vault's current claims as the memory candidates of entity extraction.

Spec: knowledge-entities-extraction.md ("Memory relations"): the candidates
are supplied by the caller. Issue 17 makes them the vault's current claims:
the body is the fact, the claim's `entities` and evidence paths its explicit
references. The extraction package sits beside `vault` and must not read it,
so this small bridge sits above both; the CLI (`knowledge entities --vault`)
and the window's Repository pane share it.
"""

from __future__ import annotations

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
