"""Adopting plain notes: a folder of Obsidian, Foam or zk Markdown becomes page records in place.

Beyond the spec (issue 14, §4; issue 25, §5; contract: docs/writing.md, "Adopting notes").
Every `.md` file of a partition (or of every partition and the vault root:
the whole vault, the root's notes moved into a partition by `root_move.py`) that
is not yet a record — no frontmatter, or frontmatter without `format:
knowledge-record-v1` — gets the envelope a page needs, spliced into its
frontmatter (`records/roundtrip.py`) so that every other key keeps its bytes;
the body is never touched. The title is the frontmatter's `title`, else the
first `# heading`, else the file name; the aliases and tags are the note's
own (`aliases`/`alias`, `tags`/`tag`, inline `#tags`); the type comes from
the folder (`type_map`, else the ontology's directories), else `note`.

Links keep their targets: every wikilink of the partition is resolved as
Obsidian would (`write/notes.py`), and a note that a link reaches by a name
our resolver would not find (its file name, a partial path) gets that name
as an alias. A heading title that another note's link name or alias already
claims would make such links ambiguous, so that note keeps its file name as
title. A note that cannot be adopted (unreadable, binary, not UTF-8, too
large, bad YAML, a key the envelope owns, or one the read side would judge
invalid) is listed in `skipped` with the reason and left alone.

One plan writes every adopted file (one journal entry, one receipt); each
write is fenced by the sha256 read here. `expect` (a dry run's output) adds a
fence across time: a file changed since the dry run refuses the whole run,
and the dry run's ids are the ones written. `plan_undo` puts an adopt run's
files back from the journal, fenced by the bytes the run wrote.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field, replace
from typing import Any

from knowledge_desktop.engine.fs.walk import is_ignored_folder
from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.ontology.compose import Activation
from knowledge_desktop.engine.records import frontmatter, yaml12
from knowledge_desktop.engine.records.emit import Style, emit_entry
from knowledge_desktop.engine.records.models import FORMAT
from knowledge_desktop.engine.records.notes import property_text
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES, sha256_hex
from knowledge_desktop.engine.records.roundtrip import DELETE, update_frontmatter
from knowledge_desktop.engine.write import journal, notes
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.link_claims import LinkClaims
from knowledge_desktop.engine.write.operations import root_move
from knowledge_desktop.engine.write.operations.common import ASSIGNED, LIFECYCLE_METADATA, anchors
from knowledge_desktop.engine.write.plan import FileWrite, Plan, WriteRejected

OPERATION = "adopt"
RESERVED = ("format", "kind", "scope", *ASSIGNED, *LIFECYCLE_METADATA)
"""Keys the envelope owns: a note that already uses one for something else is left alone."""
ORDER = ("format", "id", "revision", "kind", "title", "scope", "lifecycle", "recorded_at", "updated_at")


@dataclass(slots=True)
class Note:
    path: str
    rel: str
    data: bytes
    text: str
    fm: dict[str, Any] | None
    """None: no frontmatter at all."""
    body: str
    is_record: bool = False
    aliases: list[str] = field(default_factory=list)


def _skip(path: str, code: str, reason: str) -> dict[str, str]:
    return {"path": path, "code": code, "reason": reason}


def survey(root: str, scope: str) -> tuple[list[Note], list[dict[str, str]]]:
    """Every `.md` file of the partition, read (hidden folders and other tools' folders left
    out, as the walk leaves them), and those that cannot be read as a note, with the reason."""
    found: list[Note] = []
    skipped: list[dict[str, str]] = []
    base = os.path.join(root, scope)
    for folder, dirs, files in os.walk(base):
        parent = os.path.basename(folder)
        dirs[:] = sorted(d for d in dirs if not is_ignored_folder(parent, d))
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(".md"):
                continue
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, base).replace(os.sep, "/")
            path = f"{scope}/{rel}"
            if os.path.islink(full):
                skipped.append(_skip(path, "symlink", "a symbolic link; adopt the file it points to"))
                continue
            try:
                with open(full, "rb") as fh:
                    data = fh.read(MAX_FILE_BYTES + 1)
            except OSError as exc:
                skipped.append(_skip(path, "unreadable", f"cannot be read: {exc.strerror or exc}"))
                continue
            note = _read(path, rel, data, skipped)
            if note is not None:
                found.append(note)
    return found, skipped


def _read(path: str, rel: str, data: bytes, skipped: list[dict[str, str]]) -> Note | None:
    if len(data) > MAX_FILE_BYTES:
        skipped.append(_skip(path, "file-too-large", f"larger than {MAX_FILE_BYTES // 2**20} MiB"))
        return None
    if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        skipped.append(_skip(path, "file-binary", "binary data (or UTF-16), not UTF-8 text"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        skipped.append(_skip(path, "file-not-utf8", f"not UTF-8 text (byte offset {exc.start})"))
        return None
    bare = text.removeprefix("\ufeff")
    if "\r" in bare.replace("\r\n", ""):
        skipped.append(_skip(path, "line-ends-cr", "lone carriage-return line ends; save with LF or CRLF"))
        return None
    try:
        split = frontmatter.split(bare)
    except frontmatter.FrontmatterError as exc:
        skipped.append(_skip(path, "invalid-frontmatter", f"line {exc.line}: {exc.message}"))
        return None
    if split is None:
        return Note(path, rel, data, text, None, bare)
    try:
        loaded = yaml12.load(split.yaml_text, split.yaml_first_line).data
    except yaml12.YamlError as exc:
        line = (exc.line or 0) + split.yaml_first_line
        skipped.append(_skip(path, "invalid-yaml", f"line {line}: {exc.message}"))
        return None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        skipped.append(_skip(path, "frontmatter-not-mapping", "the frontmatter is not a mapping of keys"))
        return None
    note = Note(path, rel, data, text, loaded, split.body)
    note.is_record = loaded.get("format") == FORMAT
    if not note.is_record:
        aliases = notes.string_list(loaded.get("aliases"))
        alias = notes.string_list(loaded.get("alias"))
        note.aliases = [*(aliases or []), *(alias or [])]
    return note


def plan_adopt(
    ctx: WriteContext,
    scope: str | None = None,
    *,
    type_map: dict[str, str] | None = None,
    expect: dict[str, dict[str, Any]] | None = None,
    root_into: str | None = None,
) -> Plan:
    """The plan that adopts every plain note of the partition `scope`, or of every partition
    when it is None — the whole vault in one run, one journal entry, one undo (see the module
    docstring). A whole-vault run also moves the notes at the vault root into one partition,
    `root_into` or the default (`root_move.py`). `expect`: path -> {"sha256", "id"} from a dry
    run (a root note by its path before the move)."""
    if scope is not None and root_into is not None:
        raise WriteRejected(
            "root-into-partition",
            "--root-into moves the notes at the vault root, which only a whole-vault run adopts",
            {"partition": scope},
        )
    scopes = [_partition(ctx, scope)] if scope is not None else ctx.scopes()
    surveyed: list[tuple[str, list[Note]]] = []
    skipped: list[dict[str, str]] = []
    for name in scopes:
        found, unread = survey(str(ctx.root), name)
        surveyed.append((name, found))
        skipped += unread
    at_root: list[Note] = []
    dest: str | None = None
    if scope is None:
        at_root, unread = survey_root(str(ctx.root))
        skipped += unread
        dest = root_move.destination(root_into, [n for n, found in surveyed if found], str(ctx.root))
        if at_root and dest not in scopes:
            surveyed.append((dest, []))
    notes_now = [n for _name, found in surveyed for n in found if not n.is_record]
    roots = [n for n in at_root if not n.is_record]
    if expect is not None:
        _check_expected([*notes_now, *roots], expect)
    conn = ctx.store.reader()
    links = root_move.Links.read(conn) if roots else root_move.Links()
    refused: dict[str, dict[str, Any]] = {}
    written = {n.path for n in [*notes_now, *roots]}
    planned_before: dict[str, tuple[tuple[tuple[str, str], ...], _Planned]] = {}
    """Partition -> the notes it was planned with (path, text) and that plan: a partition
    whose notes read the same is not planned again (the loop below re-plans after refusals)."""
    while True:
        moving = [n.path for n in roots if n.path not in refused and n.path in written]
        if dest is not None:
            for path, reason in root_move.blocked(ctx, dest, moving, written, links).items():
                refused[path] = _root_skip(path, dest, reason)
        moved = {n.path: f"{dest}/{n.rel}" for n in roots if n.path in moving and n.path not in refused}
        back = {new: old for old, new in moved.items()}
        pool = {n.path: n for n in [*notes_now, *roots] if n.path in written or n.path in moved}
        rewritten, made = root_move.rewrite(pool, links, moved)
        claims = LinkClaims.read(conn, moved)
        moved_notes = [
            replace(rewritten.get(n.path, n), path=moved[n.path]) for n in roots if n.path in moved
        ]
        outcome = _Planned()
        for name, surveyed_notes in surveyed:
            found = [rewritten.get(n.path, n) for n in surveyed_notes]
            if name == dest:
                found += moved_notes
            key = tuple((n.path, n.text) for n in found)
            if name in planned_before and planned_before[name][0] == key:
                planned = planned_before[name][1]
            else:
                try:
                    ontology, new_partition = _ontology(ctx, name, scopes)
                except WriteRejected as rejected:
                    if scope is not None:
                        raise
                    outcome.skipped += [
                        _skip(n.path, rejected.code, rejected.message) for n in found if not n.is_record
                    ]
                    continue
                shown = {moved.get(k, k): v for k, v in expect.items()} if expect is not None else None
                planned = _plan_partition(ctx, name, ontology, found, type_map, shown, claims, new_partition)
                planned_before[name] = (key, planned)
            outcome.writes += planned.writes
            outcome.adopted += planned.adopted
            outcome.skipped += planned.skipped
            outcome.ambiguous += planned.ambiguous
        actual = {back.get(a["path"], a["path"]) for a in outcome.adopted}
        left = {back[e["path"]]: {**e, "path": back[e["path"]]} for e in outcome.skipped if e["path"] in back}
        refused.update(left)  # a root note adoption leaves stays at the root
        still = [p for p in moved if p not in refused]
        if not left and (dest is None or not root_move.blocked(ctx, dest, still, actual, links)):
            break
        written = actual  # a file the plan leaves cannot carry a rewritten link: plan again
    writes, adopted = _moves(outcome, moved)
    skipped += [s for s in outcome.skipped if s["path"] not in back]
    skipped += [refused[p] for p in sorted(refused)]
    extra = {
        "partition": scope,
        "partitions": scopes,
        "adopted": adopted,
        "skipped": skipped,
        "ambiguousNames": outcome.ambiguous,
        "crossPartitionLinks": _crossing(claims, {a.get("movedTo") or a["path"] for a in adopted}),
        "rootInto": dest,
        "linksRewritten": made,
    }
    return Plan(OPERATION, None, None, writes, extra=extra)


def _ontology(ctx: WriteContext, name: str, scopes: list[str]) -> tuple[Any, Activation | None]:
    """The partition's ontology; for a partition the run creates (root notes moving into a
    folder that does not exist yet), the one it will have — the shipped default, unless the
    folder already holds manifests — and that activation."""
    if name in scopes:
        return ctx.ontology(name, fence=False), None
    activation = ctx.new_partition(name)
    if activation.ontology is None:
        raise WriteRejected(
            "ontology-unavailable", f"partition {name!r} has no active ontology", {"scope": name}
        )
    return activation.ontology, activation


def _moves(outcome: _Planned, moved: dict[str, str]) -> tuple[list[FileWrite], list[dict[str, Any]]]:
    """The plan's writes and entries with each root note's write made a move: the old file
    deleted and the adopted bytes created at the new path, in the one journal entry (as
    `filing.py` files a note), the entry under its old path with `movedTo`."""
    back = {new: old for old, new in moved.items()}
    writes: list[FileWrite] = []
    for write in outcome.writes:
        old = back.get(write.path)
        if old is None:
            writes.append(write)
            continue
        writes.append(FileWrite(old, None, write.expected_sha256, write.record_id, 0))
        writes.append(FileWrite(write.path, write.content, None, write.record_id, write.revision))
    adopted = []
    for entry in outcome.adopted:
        old = back.get(entry["path"])
        adopted.append(entry if old is None else {**entry, "path": old, "movedTo": entry["path"]})
    return writes, adopted


def _root_skip(path: str, dest: str, reason: str) -> dict[str, Any]:
    return {
        "path": path,
        "code": "root-note",
        "reason": f"a note at the vault root is adopted by moving it into {dest}/, and it cannot"
        f" move: {reason}; it stays a note, its links working as before",
        "moveBlocked": reason,
    }


def _crossing(claims: LinkClaims, adopted: set[str]) -> list[dict[str, str]]:
    """The links of the notes adopted that reach a file in another top-level folder (or at
    the root). They keep resolving once adopted, by the rule for links beyond a record's
    partition (docs/decisions.md); the dry run names them so that a reader can check."""
    return [c for c in claims.crossing if c["path"] in adopted]


def survey_root(root: str) -> tuple[list[Note], list[dict[str, str]]]:
    """The Markdown files at the vault root, read as `survey` reads a partition's."""
    found: list[Note] = []
    skipped: list[dict[str, str]] = []
    try:
        names = sorted(e.name for e in os.scandir(root) if not e.is_dir(follow_symlinks=False))
    except OSError:
        return found, skipped
    for name in names:
        if name.startswith(".") or not name.lower().endswith(".md"):
            continue
        full = os.path.join(root, name)
        if os.path.islink(full):
            skipped.append(_skip(name, "symlink", "a symbolic link; adopt the file it points to"))
            continue
        try:
            with open(full, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            skipped.append(_skip(name, "unreadable", f"cannot be read: {exc.strerror or exc}"))
            continue
        note = _read(name, name, data, skipped)
        if note is not None:
            found.append(note)
    return found, skipped


@dataclass(slots=True)
class _Planned:
    writes: list[FileWrite] = field(default_factory=list)
    adopted: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)


def _plan_partition(
    ctx: WriteContext,
    scope: str,
    ontology: Any,
    found: list[Note],
    type_map: dict[str, str] | None,
    expect: dict[str, dict[str, Any]] | None,
    claims: LinkClaims,
    new_partition: Activation | None = None,
) -> _Planned:
    """One partition's part of the plan. Its records will look up a link's name among the
    partition's titles and aliases first (`write/link_claims.py`), so a title or alias is
    given only where every link of the partition by that name already reaches that note."""
    out = _Planned()
    skipped = out.skipped
    candidates = [n for n in found if not n.is_record]
    if expect is not None:
        listed = [n for n in candidates if n.path in expect]
        for n in candidates:
            if n.path not in expect:
                skipped.append(_skip(n.path, "not-in-dry-run", "appeared after the dry run; run it again"))
        candidates = listed
    claimed: dict[str, set[str]] = {}
    """Normalised name -> the files it must keep reaching from this partition (its links'
    targets now, vault-wide), and the notes whose file name or alias it is."""
    for (where, name), targets in claims.targets.items():
        if where == scope:
            claimed[name] = set(targets)
    for note in found:
        claimed.setdefault(normalise_name(posixpath.basename(note.rel)[:-3]), set()).add(note.path)
        for alias in note.aliases:
            claimed.setdefault(normalise_name(alias), set()).add(note.path)
    ambiguous = sorted(
        {
            normalise_name(name)
            for note in found
            for name in claims.written.get((scope, note.path), [])
            if len(claims.reaching(scope, name)) > 1
        }
    )
    unreachable = set(ambiguous)
    # a name that is also the partition path of a file here reaches that file first: an alias
    # of it elsewhere would make the link ambiguous (`graph/resolve.py`, `resolve_link`)
    unreachable |= {normalise_name(n.rel[:-3]) for n in found}
    graph = ctx.reconciler.graph()
    writes, adopted = out.writes, out.adopted
    types = {d.name for d in ontology.page_types()}
    for note in candidates:
        fm = note.fm or {}
        reserved = [k for k in RESERVED if k in fm]
        if reserved:
            skipped.append(
                _skip(
                    note.path,
                    "reserved-key",
                    f"its frontmatter uses {', '.join(reserved)}, which a record's envelope owns;"
                    " rename the key first",
                ),
            )
            continue
        if "[[" in property_text(note.body):
            skipped.append(
                _skip(
                    note.path,
                    "property-links",
                    "its Logseq properties (`key:: [[…]]`) hold links, which a record's body would"
                    " read as links of its own; move them into frontmatter first",
                ),
            )
            continue
        title, title_from = _title(note, scope, claimed, graph)
        if title is None:
            skipped.append(_skip(note.path, "title-invalid", "its frontmatter title is not text"))
            continue
        taken = _taken_name(note, scope, title if title_from == "frontmatter" else None, claims)
        if taken is not None:
            name, other = taken
            skipped.append(
                _skip(
                    note.path,
                    "name-taken",
                    f"its own title or alias {name!r} is the name this folder's links use for"
                    f" {other}; as a record's it would take those links (rename one first)",
                ),
            )
            continue
        own_aliases = notes.string_list(fm.get("aliases"))
        own_tags = [notes.string_list(fm.get(k)) for k in ("tags", "tag")]
        if own_aliases is None or any(t is None for t in own_tags):
            skipped.append(_skip(note.path, "list-invalid", "its aliases or tags are not text"))
            continue
        link_names = [
            name
            for name in notes.unique(claims.written.get((scope, note.path), []))
            if normalise_name(name) != normalise_name(title) and normalise_name(name) not in unreachable
        ]
        aliases = notes.unique([*note.aliases, *link_names])
        aliases = [a for a in aliases if normalise_name(a) != normalise_name(title)]
        tags = notes.unique(
            [*notes.split_tags([t for group in own_tags for t in group or []]), *notes.inline_tags(note.body)]
        )
        page_type = fm.get("type") if isinstance(fm.get("type"), str) else _type_of(note, type_map, ontology)
        if page_type is not None and page_type not in types:
            page_type = "note" if "note" in types else None
        shown = expect.get(note.path, {}) if expect is not None else {}
        record_id = str(shown.get("id") or ctx.new_id("page"))
        changes: dict[str, Any] = {
            "format": FORMAT,
            "id": record_id,
            "revision": 1,
            "kind": "page",
            "title": title,
            "scope": scope,
            "lifecycle": "active",
            "recorded_at": ctx.now,
            "updated_at": ctx.now,
        }
        if "type" not in fm and page_type is not None:
            changes["type"] = page_type
        for key, values, own in (("aliases", aliases, fm.get("aliases")), ("tags", tags, fm.get("tags"))):
            if values and values != own:
                changes[key] = values
            elif not values and key in fm:
                changes[key] = DELETE  # an empty value is invalid in a record
        if "title" in fm:
            del changes["title"]
        try:
            data = _with_frontmatter(note, changes)
            ctx.validate(
                note.path, scope, _head(data, len(note.body.encode("utf-8"))), new_partition=new_partition
            )
        except (ValueError, WriteRejected) as exc:
            skipped.append(_skip(note.path, "invalid-record", str(exc)))
            continue
        writes.append(FileWrite(note.path, data, sha256_hex(note.data), record_id, 1))
        adopted.append(
            {
                "path": note.path,
                "partition": scope,
                "sha256": sha256_hex(note.data),
                "id": record_id,
                "title": title,
                "titleFrom": title_from,
                "type": page_type if "type" not in fm else fm.get("type"),
                "aliasesAdded": [a for a in aliases if a not in note.aliases],
                "tags": tags,
            }
        )
    out.ambiguous = ambiguous
    return out


def _taken_name(note: Note, scope: str, title: str | None, claims: LinkClaims) -> tuple[str, str] | None:
    """A name the note brings itself (its frontmatter title or aliases, kept as they are) that
    links of its partition use for another file, and that file: once a record's title or
    alias, the name would be found first (`graph/resolve.py`) and those links would move."""
    for name in [*([title] if title else []), *note.aliases]:
        others = sorted(claims.reaching(scope, name) - {note.path})
        if others:
            return name, others[0]
    return None


def _partition(ctx: WriteContext, scope: str) -> str:
    scopes = ctx.scopes()
    if scope not in scopes:
        raise WriteRejected("unknown-scope", f"no partition named {scope!r}", {"scopes": scopes})
    return scope


def _check_expected(candidates: list[Note], expect: dict[str, dict[str, Any]]) -> None:
    now = {n.path: sha256_hex(n.data) for n in candidates}
    changed = [
        {"path": path, "expected": shown.get("sha256"), "hash": now.get(path)}
        for path, shown in sorted(expect.items())
        if now.get(path) != shown.get("sha256")
    ]
    if changed:
        raise WriteRejected(
            "changed-since-dry-run",
            f"{len(changed)} file(s) changed since the dry run (first: {changed[0]['path']});"
            " run the dry run again",
            {"files": changed},
        )


def _title(note: Note, scope: str, claimed: dict[str, set[str]], graph: Any) -> tuple[str | None, str]:
    fm = note.fm or {}
    if "title" in fm:
        value = fm["title"]
        return (value, "frontmatter") if isinstance(value, str) and value.strip() else (None, "")

    def free(name: str) -> bool:
        key = normalise_name(name)
        return not (claimed.get(key, set()) - {note.path}) and not graph.names.get(scope, key)

    heading = notes.first_heading(note.body)
    if heading is not None and free(heading):
        return heading, "heading"
    stem = posixpath.basename(note.rel)[:-3]
    if free(stem) or "/" not in note.rel:
        return stem, "file name"
    return note.rel[:-3], "path"  # the file name is another note's (Obsidian: by path)


def _type_of(note: Note, type_map: dict[str, str] | None, ontology: Any) -> str | None:
    """`type_map`'s folders are partition-relative (`people=person`) or, naming the partition
    first, vault-relative (`private/people=person`, for a whole-vault run); the longest wins.
    A key naming the note's own file (`Ada.md=person`, either way) is that note's type."""
    rel = note.rel
    for key in (rel, note.path):
        if key in (type_map or {}):
            return (type_map or {})[key]
    folders = [f.rsplit("/", 1)[0] + "/" if "/" in f else "" for f in (rel, note.path)]
    for prefix, name in sorted((type_map or {}).items(), key=lambda kv: -len(kv[0])):
        if any(folder.startswith(prefix.strip("/") + "/") for folder in folders):
            return name
    classified = ontology.classify(rel)
    return str(classified) if classified else "note"


def _with_frontmatter(note: Note, changes: dict[str, Any]) -> bytes:
    order = [k for k in ORDER if k in changes] + [k for k in changes if k not in ORDER]
    if note.fm is None:
        bom = "\ufeff" if note.text.startswith("\ufeff") else ""
        newline = "\r\n" if "\r\n" in note.text else "\n"
        lines = [line for key in order for line in emit_entry(key, changes[key], Style())]
        head = "---" + newline + "".join(line + newline for line in lines) + "---" + newline
        return (bom + head + note.text[len(bom) :]).encode("utf-8")
    text = update_frontmatter(note.text, {k: changes[k] for k in order}, after=anchors(order, set(note.fm)))
    return text.encode("utf-8")


def _head(data: bytes, body_bytes: int) -> bytes:
    """The file without its body: what makes a page valid or not is all in its frontmatter
    (the body only adds link warnings), and parsing 10,000 bodies for links twice — here and in
    the reconcile after the write — was a third of an adopt run."""
    return data[: len(data) - body_bytes] if body_bytes else data


def plan_undo(ctx: WriteContext, journal_id: int) -> Plan:
    """Put back the files an adopt run wrote, as they were before it, if none changed since."""
    conn = ctx.store.reader()
    entry = journal.entry(conn, journal_id)
    if entry is None:
        raise WriteRejected("not-found", f"no journal entry {journal_id}", {})
    if entry.operation != OPERATION:
        raise WriteRejected(
            "not-undoable", f"journal entry {journal_id} is a {entry.operation}, not an adopt run", {}
        )
    if entry.state != journal.PUBLISHED:
        raise WriteRejected("not-published", f"journal entry {journal_id} is {entry.state}", {})
    undone = conn.execute(
        "SELECT seq FROM journal WHERE operation='undo' AND state=?"
        " AND json_extract(plan, '$.extra.undoneJournalId')=?",
        (journal.PUBLISHED, journal_id),
    ).fetchone()
    if undone is not None:
        raise WriteRejected(
            "already-undone",
            f"adopt run {journal_id} was undone by entry {undone[0]}",
            {"journalId": undone[0]},
        )
    files = journal.files(conn, journal_id)
    changed = []
    writes = []
    for f in files:
        now = ctx.sha_on_disk(f.path)
        if now != f.new_sha256:
            changed.append({"path": f.path, "expected": f.new_sha256, "hash": now})
        elif f.old_data is not None:
            writes.append(FileWrite(f.path, f.old_data, f.new_sha256, f.record_id or "", 0))
        elif f.new_sha256 is not None:  # a file the run created (a note filed in its folder)
            writes.append(FileWrite(f.path, None, f.new_sha256, f.record_id or "", 0))
    if changed:
        raise WriteRejected(
            "fence-hash",
            f"{len(changed)} file(s) changed since the adopt run (first: {changed[0]['path']});"
            " undo never overwrites an edit",
            {"files": changed},
        )
    return Plan("undo", None, None, writes, extra={"undoneJournalId": journal_id})
