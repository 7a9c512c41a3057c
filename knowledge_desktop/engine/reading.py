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

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.fs.walk import FileEntry
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.records.parse import ParsedFile, parse_bytes, sha256_hex
from knowledge_desktop.engine.store import codec


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
    out = read_batch(root, jobs)
    for result in out:
        if result.parsed is not None:
            result.encoded = codec.encode(result.parsed)
            result.parsed = None
    return out


def read_batch(root: str, jobs: list[tuple[FileEntry, str | None]]) -> list[ReadResult]:
    """Read, hash and (when the hash moved) parse files. Runs in worker processes."""
    out: list[ReadResult] = []
    for entry, known_sha in jobs:
        if entry.outside_link:
            # The marker stands in for a hash everywhere (files table, catalog,
            # nodes read back from the parse cache), so it is the parse's too,
            # as is the size the files table keeps.
            marker = "link:" + str(entry.inode)
            parsed = ParsedFile(entry.path, entry.scope, marker, entry.size, "unrecognized")
            parsed.diagnostics.append(
                dg.make(
                    "symlink-outside-vault",
                    entry.path,
                    "this symbolic link points outside the vault and is not followed",
                )
            )
            out.append(ReadResult(entry, marker, parsed))
            continue
        try:
            with open(os.path.join(root, entry.path), "rb") as handle:
                data = handle.read()
        except OSError as exc:
            marker = "unreadable:" + str(entry.mtime_ns)
            parsed = ParsedFile(entry.path, entry.scope, marker, entry.size, "unrecognized")
            parsed.diagnostics.append(
                dg.make("file-unreadable", entry.path, f"cannot read: {exc.strerror or exc}")
            )
            out.append(ReadResult(entry, marker, parsed))
            continue
        sha = sha256_hex(data)
        if entry.kind == "manifest" or sha == known_sha:
            out.append(ReadResult(entry, sha, None))
            continue
        if entry.scope is None:
            parsed = parse_bytes(entry.path, None, data)
            parsed.diagnostics.insert(
                0,
                dg.make(
                    "outside-partition",
                    entry.path,
                    "Markdown at the vault root belongs to no partition; move it into a folder",
                ),
            )
            out.append(ReadResult(entry, sha, parsed))
            continue
        out.append(ReadResult(entry, sha, parse_bytes(entry.path, entry.scope, data)))
    return out
