"""Where an adopted note ends up: filed in its type's folder, or kept where it is (issue 29, §5).

Adopting writes each note in place (`operations/adopt.py`). A person may
rather have a `person` note in `people/`: `arrange` turns an adopt plan's
write of such a note into a move — the old file deleted and the same bytes
written at `<partition>/<type's directory>/<file name>`, both in the one
journal entry, so the adopt's `undo` puts it back (`adopt.plan_undo`).

A move must keep every link to the note and from it working, so a note is
moved only when nothing depends on where it is: no wikilink reaches it by a
path with a folder in it, no other note shares its file name (Obsidian would
then pick by folder), no file already has the new name, and its body has no
relative Markdown link or image (those are relative to its folder). Link
names that reached it by its old partition path (`[[Ada]]` for `Ada.md` at
the partition's root) become aliases, which our resolver follows wherever
the file is. A note that cannot move is adopted in place and the dry run says
why (`moveBlocked`).

A note kept in place outside its type's folder is marked `filing: in-place`,
which tells the `misfiled` rule that the place was chosen (docs/decisions.md,
"Adopted notes keep their place"): the spec makes filing elsewhere a
diagnostic, and for a folder someone organised themselves that diagnostic
would be a false alarm on every note.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from typing import Any

from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.links.precedence import in_collection_folder
from knowledge_desktop.engine.records import frontmatter, yaml12
from knowledge_desktop.engine.records.roundtrip import update_frontmatter
from knowledge_desktop.engine.write import notes
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.link_claims import LinkClaims, link_name, partition_of
from knowledge_desktop.engine.write.operations.adopt import Note, survey
from knowledge_desktop.engine.write.plan import FileWrite, Plan, WriteRejected

FILING_KEY = "filing"
IN_PLACE = "in-place"
"""`filing: in-place`: the record stays where its author put it; no `misfiled` for it."""
_RELATIVE_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)")


def arrange(ctx: WriteContext, plan: Plan, move: Collection[str]) -> Plan:
    """The adopt `plan` with each note of `move` (vault-relative paths) filed in its type's
    folder where links allow, and every other note outside its type's folder marked
    `filing: in-place`. Each adopted entry gains `directory` (its type's folder, partition-
    relative, or None), `movedTo` (the new path, or None) and `moveBlocked` (why a note asked
    to move stays, or None)."""
    writes = {w.path: w for w in plan.writes}
    out: list[FileWrite] = []
    taken: set[str] = set()
    surveyed: dict[str, list[Note]] = {}
    for entry in plan.extra.get("adopted", []):
        if entry.get("movedTo"):  # a root note moving into a partition (`root_move.py`)
            out += _arrange_moved(ctx, entry, writes)
            continue
        write = writes.pop(entry["path"], None)
        if write is None:
            continue
        scope, rel = entry["path"].split("/", 1)
        directory = _directory(ctx, scope, entry.get("type"))
        entry.update(directory=directory, movedTo=None, moveBlocked=None)
        placed = directory is None or rel.startswith(directory) or in_collection_folder(entry["path"])
        if placed:
            out.append(write)
            continue
        if entry["path"] in move and directory is not None:
            if scope not in surveyed:
                surveyed[scope] = survey(str(ctx.root), scope)[0]
            target = f"{scope}/{directory}{posixpath.basename(rel)}"
            blocked, names = _why_not(ctx, surveyed[scope], rel, target, taken)
            names = [n for n in names if normalise_name(n) != normalise_name(entry["title"])]
            if blocked is None:
                taken.add(target.lower())
                data = _with_aliases(write.content, names)
                entry["movedTo"] = target
                entry["aliasesAdded"] = notes.unique([*entry.get("aliasesAdded", []), *names])
                out.append(FileWrite(write.path, None, write.expected_sha256, write.record_id, 0))
                out.append(FileWrite(target, data, None, write.record_id, write.revision))
                continue
            entry["moveBlocked"] = blocked
        entry["filing"] = IN_PLACE
        data = update_frontmatter(write.content.decode("utf-8"), {FILING_KEY: IN_PLACE}).encode("utf-8")
        out.append(FileWrite(write.path, data, write.expected_sha256, write.record_id, write.revision))
    out += writes.values()  # anything the plan writes that is not an adopted note, unchanged
    plan.writes = out
    return plan


def _arrange_moved(ctx: WriteContext, entry: dict[str, Any], writes: dict[str, FileWrite]) -> list[FileWrite]:
    """A root note's move, kept as planned (its delete and create): it lands at
    `<partition>/<file name>` and no further — its Markdown links were rewritten for that
    place — so outside its type's folder it is marked `filing: in-place`."""
    target = entry["movedTo"]
    delete, create = writes.pop(entry["path"], None), writes.pop(target, None)
    scope, rel = target.split("/", 1)
    directory = _directory(ctx, scope, entry.get("type"))
    entry.update(directory=directory, moveBlocked=None)
    if create is not None and directory is not None and not rel.startswith(directory):
        entry["filing"] = IN_PLACE
        text = update_frontmatter(create.content.decode("utf-8"), {FILING_KEY: IN_PLACE})
        create = FileWrite(create.path, text.encode("utf-8"), None, create.record_id, create.revision)
    return [w for w in (delete, create) if w is not None]


def _directory(ctx: WriteContext, scope: str, page_type: Any) -> str | None:
    if not isinstance(page_type, str):
        return None
    try:
        ontology = (
            ctx.ontology(scope, fence=False)
            if scope in ctx.scopes()
            else ctx.new_partition(scope).ontology  # a partition the run creates
        )
        if ontology is None:
            return None
        definition = ontology.definitions.get(page_type)
    except WriteRejected:
        return None
    return definition.directory if definition is not None else None


def _why_not(
    ctx: WriteContext, found: list[Note], rel: str, target: str, taken: set[str]
) -> tuple[str | None, list[str]]:
    """Why the note at partition path `rel` cannot move to `target` (None: it can), and the
    link names that reach it by its old path, which it must keep as aliases. The links are
    the engine's own answer (the links projection of the last scan), as adopting reads them
    (`write/link_claims.py`)."""
    scope = target.split("/", 1)[0]
    path = f"{scope}/{rel}"
    stem = posixpath.basename(rel)[:-3].lower()
    if target.lower() in taken or ctx.sha_on_disk(target) is not None:
        return f"{target} already exists", []
    me = next((n for n in found if n.rel == rel), None)
    if me is None:
        return "the note is no longer there", []
    for note in found:
        if note.rel != rel and posixpath.basename(note.rel)[:-3].lower() == stem:
            return f"{note.path} has the same file name; links by name could reach either", []
    if _relative_links(me.body):
        return "its relative Markdown links or images would point elsewhere from another folder", []
    conn = ctx.store.reader()
    rows = conn.execute(
        "SELECT src_path, target_text, link_kind, status FROM links WHERE target_path=?"
        " AND status IN ('resolved', 'ambiguous') ORDER BY src_path, line",
        (path,),
    ).fetchall()
    claims = LinkClaims.read(conn)
    names: list[str] = []
    for src, text, kind, status in rows:
        name = link_name(str(text))
        if kind in ("markdown", "image"):
            return f"{src} links to it by a relative Markdown link", []
        if status == "ambiguous":
            return f"{src} links to it by a name two files share ([[{name}]])", []
        if "/" in name.strip("/"):
            return f"{src} links to it by its path ([[{name}]])", []
        if claims.reaching(partition_of(str(src)), name) - {path}:
            return f"[[{name}]] also reaches another file", []
        if name:
            names.append(name)
    return None, notes.unique(names)


def _relative_links(body: str) -> list[str]:
    """The targets of Markdown links and images in prose that are relative file paths."""
    out = []
    for line in notes.prose_lines(body):
        for match in _RELATIVE_LINK.finditer(line):
            target = match.group(1).split("#", 1)[0]
            if target and ":" not in target and not target.startswith(("/", "#")):
                out.append(target)
    return out


def _with_aliases(data: bytes, names: list[str]) -> bytes:
    """The adopted bytes with `names` added to the page's `aliases` (our resolver follows an
    alias wherever the file is; a partition path it would not)."""
    if not names:
        return data
    text = data.decode("utf-8")
    split = frontmatter.split(text.removeprefix("\ufeff"))
    loaded = yaml12.load(split.yaml_text, split.yaml_first_line).data if split is not None else {}
    own = notes.string_list(loaded.get("aliases")) if isinstance(loaded, dict) else None
    aliases = notes.unique([*(own or []), *names])
    return update_frontmatter(text, {"aliases": aliases}).encode("utf-8")
