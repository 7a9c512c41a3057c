"""Links from documentation to code: `defines-symbol` and `affected-fact`.

Spec: knowledge-entities-extraction.md, "Shape" and "Extraction and identity".
A concept (by its term or any declared alias) and a decision (by its exact
title) define the symbol of the same name when exactly one module owns it:
names compare case-sensitively and whole, declaring modules win over
forwarding ones, and several owners leave the entity without a link (said in
coverage). The link targets the module fact and names the symbol; the
entity's evidence gains the symbol's fact. A change links `affected-fact` to
the module facts of the paths it touched that exist now; a removed path stays
an `affected-path` only, since nothing current describes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from knowledge_desktop.engine.extraction.model import SYMBOLS, Found, Reason
from knowledge_desktop.engine.extraction.symbols.discovery import Discovery
from knowledge_desktop.engine.extraction.symbols.model import module_id, symbol_id


@dataclass(slots=True)
class Owners:
    """Who exports each name: declaring and forwarding modules, by path."""

    declaring: dict[str, set[str]] = field(default_factory=dict)
    forwarding: dict[str, set[str]] = field(default_factory=dict)
    modules: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, discovery: Discovery) -> Owners:
        out = cls()
        for module in discovery.modules:
            out.modules.add(module.path)
            for s in module.symbols:
                side = out.forwarding if s.forwarding else out.declaring
                side.setdefault(s.name, set()).add(module.path)
        return out

    def owner(self, name: str) -> tuple[str | None, list[str]]:
        """The unique owning module of `name` and, when there are several, all of them."""
        paths = self.declaring.get(name) or self.forwarding.get(name) or set()
        if len(paths) == 1:
            return next(iter(paths)), []
        return None, sorted(paths)


def link_symbols(finds: Iterable[Found], owners: Owners, reasons: list[Reason]) -> None:
    """Add `defines-symbol` and `affected-fact` links (and fact evidence) to `finds`."""
    for f in finds:
        if f.kind == "change":
            touched = [target for kind, *rest in f.links if kind == "affected-path" for target in rest[:1]]
            f.links += [("affected-fact", module_id(p)) for p in touched if p in owners.modules]
            continue
        names = [f.name, *f.aliases] if f.kind == "concept" else [f.name]
        for name in dict.fromkeys(names):
            path, several = owners.owner(name)
            if path is not None:
                f.links.append(("defines-symbol", module_id(path), name))
                f.facts.append(symbol_id(path, name))
            elif several:
                where = f.regions[0].path if f.regions else ""
                reasons.append(Reason(SYMBOLS, "ambiguous-symbol", where, f"{name!r}: {', '.join(several)}"))
