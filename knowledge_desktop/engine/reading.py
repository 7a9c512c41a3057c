"""Reading vault files for reconcile: bytes, hash and parse, here or in worker processes.

Reconcile hands over the files whose stat moved; each is read once, hashed,
and parsed only when its hash differs from the one on record. Large batches
run in worker processes (`engine/workers.py`), which send parses back as the
parse cache's JSON (cheaper than pickling). In the main process every parse
is cut down at once to the compact `RecordNode` the graph keeps and the JSON
the `files` table stores (`settle`), so a cold scan never holds every parse.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.fs.inside import real_path
from knowledge_desktop.engine.fs.read import READ_ATTEMPTS, read_file
from knowledge_desktop.engine.fs.walk import FileEntry, Problem, is_utf8
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.limits import MAX_EVIDENCE_FILE_BYTES, MAX_MANIFEST_BYTES
from knowledge_desktop.engine.ontology.compose import (
    ACTIVE_FILE,
    SHIPPED_PATH,
    Activation,
    ManifestSource,
    activate,
    shipped_default_path,
)
from knowledge_desktop.engine.records.parse import (
    MAX_FILE_BYTES,
    ParsedFile,
    parse_with_body,
    sha256_hex,
    too_large_message,
)
from knowledge_desktop.engine.store import codec
from knowledge_desktop.engine.store.projections import keyword_text
from knowledge_desktop.engine.store.projections.keyword_text import RecordText


@dataclass(slots=True)
class ReadResult:
    entry: FileEntry
    sha256: str
    parsed: ParsedFile | None
    """None when the bytes are unchanged (only the stat moved) or for manifests;
    in the main process also once `settle` has turned it into `node`."""
    encoded: str | None = None
    """The parse as cache JSON: how worker processes send it (cheaper than pickling),
    and what the `files.node` column stores."""
    node: RecordNode | None = None
    """The compact form derivation keeps."""
    text: RecordText | None = None
    """A record's search text as the keyword projection writes it, worked out by the
    worker that read the bytes (`keyword_text`): a bulk write indexes it without
    reading the file again."""


def settle(result: ReadResult) -> ReadResult:
    """Cut a fresh parse down to what the main process keeps: its cache JSON
    for the `files` row and its compact `RecordNode`. The full parse is dropped here,
    file by file, so a cold scan never holds every parse at once."""
    parsed = result.parsed
    if parsed is not None:
        if result.encoded is None:
            result.encoded = codec.encode(parsed)
        result.node = RecordNode(parsed)
        result.parsed = None
    return result


def file_rows(rows: list[ReadResult]) -> Iterator[tuple[object, ...]]:
    """The files table's rows; each parse's JSON is let go once SQLite has it,
    before the projections are written."""
    for result in rows:
        entry = result.entry
        encoded, result.encoded = result.encoded, None
        yield (
            entry.path,
            entry.scope,
            entry.kind,
            entry.size,
            entry.mtime_ns,
            entry.inode,
            result.sha256,
            encoded,
        )


def read_batch_encoded(root: str, jobs: list[tuple[FileEntry, str | None]]) -> list[ReadResult]:
    """`read_batch` for worker processes: parses travel back as cache JSON."""
    out = read_batch(root, jobs, with_text=True)
    for result in out:
        if result.parsed is not None:
            result.encoded = codec.encode(result.parsed)
            result.parsed = None
    return out


def read_batch(
    root: str, jobs: list[tuple[FileEntry, str | None]], *, with_text: bool = False
) -> list[ReadResult]:
    """Read, hash and (when the hash moved) parse files. Runs in worker processes.
    `with_text`: also work out each record's search text (`ReadResult.text`), which only
    a bulk write uses (workers read for it; an edit's text waits for the next search)."""
    return [_read_one(root, entry, known_sha, with_text) for entry, known_sha in jobs]


def _read_one(root: str, listed: FileEntry, known_sha: str | None, with_text: bool = False) -> ReadResult:
    if listed.problem is not None:
        code, message = _PROBLEMS[listed.problem]
        return _unread(listed, code, message.format(detail=listed.detail))
    try:
        read = read_file(os.path.join(root, listed.path), MAX_FILE_BYTES)
    except OSError as exc:
        # Permissions come back without the stat moving (chmod changes no mtime), so an
        # unreadable file gets a stat that matches none: it is tried again each time.
        reason = (exc.strerror or str(exc)).lower()
        return _unread(listed._replace(mtime_ns=0), "file-unreadable", f"cannot read this file: {reason}")
    # The stat after the read is the one its bytes belong to; a file that kept
    # changing gets one that matches no stat, so that it is read again next time.
    entry = listed._replace(size=read.size, mtime_ns=0 if read.changing else read.mtime_ns, inode=read.inode)
    if read.data is None:
        return _unread(entry, "file-too-large", too_large_message(read.size))
    sha = sha256_hex(read.data)
    if entry.kind == "manifest" or (sha == known_sha and not read.changing):
        return ReadResult(entry, sha, None)
    parsed, body = parse_with_body(entry.path, entry.scope, read.data, sha)
    if entry.scope is None and parsed.status != "note":  # root notes are fine (docs/decisions.md)
        parsed.diagnostics.insert(
            0,
            dg.make(
                "outside-partition",
                entry.path,
                "Markdown at the vault root belongs to no partition; move it into a folder",
            ),
        )
    if read.changing:
        parsed.diagnostics.insert(
            0,
            dg.make(
                "file-changing",
                entry.path,
                f"the file was being written each of the {READ_ATTEMPTS} times it was read; what"
                " is shown is the last read, and the file is read again on the next scan",
            ),
        )
    text = None
    if with_text and body is not None:
        text = keyword_text.of_record(parsed, body, read.data)
    return ReadResult(entry, sha, parsed, text=text)


def _unread(entry: FileEntry, code: str, message: str) -> ReadResult:
    """A file listed but not read: its diagnostic, and a marker in place of its hash.

    The marker stands in for a hash everywhere (files table, catalog, nodes read
    back from the parse cache) and changes with the file's stat, so a change of
    the file is noticed without reading it. Manifests get the marker only: their
    problems are reported by the ontology's activation."""
    marker = f"{code}:{entry.inode}:{entry.mtime_ns}:{entry.size}"
    if entry.kind == "manifest":
        return ReadResult(entry, marker, None)
    parsed = ParsedFile(entry.path, entry.scope, marker, entry.size, "unrecognized")
    parsed.diagnostics.append(dg.make(code, entry.path, message))
    return ReadResult(entry, marker, parsed)


_PROBLEMS: dict[Problem, tuple[str, str]] = {
    "outside-link": (
        "symlink-outside-vault",
        "this symbolic link points outside the vault and is not followed",
    ),
    "broken-link": ("symlink-broken", "this symbolic link is not followed: {detail}"),
    "folder-unreadable": (
        "folder-unreadable",
        "cannot list this folder ({detail}); the files in it are not read",
    ),
    "name-not-utf8": (
        "file-name-not-utf8",
        "this name is not valid UTF-8 (its bad bytes are shown as \\x escapes); rename it to have it read",
    ),
}
"""The code and message of each reason the walk lists a path that cannot be read."""


def read_manifest(rel: str, path: Path) -> ManifestSource:
    """A manifest's text, or why it cannot be had: unreadable, too large, not UTF-8."""
    try:
        read = read_file(str(path), MAX_MANIFEST_BYTES)
    except OSError as exc:
        return ManifestSource(rel, "", f"cannot read the manifest: {(exc.strerror or str(exc)).lower()}")
    if read.data is None:
        return ManifestSource(
            rel,
            "",
            f"the manifest is {read.size / (1024 * 1024):.1f} MiB; manifests over"
            f" {MAX_MANIFEST_BYTES // (1024 * 1024)} MiB are not read",
        )
    try:
        return ManifestSource(rel, read.data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = read.data.count(b"\n", 0, exc.start) + 1
        return ManifestSource(rel, "", f"the manifest is not UTF-8 text (line {line}); save it as UTF-8")


def activate_partition(root: Path, scope: str) -> Activation:
    """The partition's ontology, from the shipped default, its `ontologies/` library
    and its `ontology.yaml`. A linked folder or manifest is not followed (the walk
    skips them too): one pointing out of the vault would lend manifests from anywhere."""
    partition = root / scope
    library = [ManifestSource(SHIPPED_PATH, shipped_default_path().read_text("utf-8"))]
    folder = partition / "ontologies"
    if folder.is_dir() and not folder.is_symlink():
        for item in sorted(folder.iterdir()):
            wanted = item.suffix in (".yaml", ".yml") and is_utf8(item.name)
            if wanted and item.is_file() and not item.is_symlink():
                library.append(read_manifest(f"{scope}/ontologies/{item.name}", item))
    active_file = partition / ACTIVE_FILE
    active = None
    if active_file.is_file() and not active_file.is_symlink():
        active = read_manifest(f"{scope}/{ACTIVE_FILE}", active_file)
    return activate(active, library)


def probe_evidence(root: Path, rel: str) -> bytes | str | None:
    """Bytes of a vault file for evidence checks: None when it does not exist, else
    why it is not read. Its real path must stay inside the vault (`fs/inside.py`),
    and nothing over `MAX_EVIDENCE_FILE_BYTES` is read (`fs/read.py`)."""
    try:
        read = read_file(real_path(root, rel), MAX_EVIDENCE_FILE_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return str(exc.strerror or exc)
    if read.data is None:
        limit = MAX_EVIDENCE_FILE_BYTES // (1024 * 1024)
        size = read.size / (1024 * 1024)
        return f"it is {size:.1f} MiB; evidence files over {limit} MiB are not hashed"
    return read.data
