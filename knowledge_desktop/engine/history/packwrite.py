"""Writing many new blobs straight into a pack (Git's pack and index format, version 2).

The baseline stores every file of the vault at once; through libgit2 each blob would be
a loose file first (one file creation each, ~1.6 ms on a VM disk: minutes at 100k)
and then be packed. pygit2 exposes no way to stream objects into a pack, so this
writes the two files itself: each object zlib-compressed after its type-and-size
header, the pack's SHA-1 at its end, and an index of sorted ids, CRCs and offsets.
No deltas: the blobs are distinct files. libgit2 finds the new pack on its next miss.
"""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from collections.abc import Iterable
from pathlib import Path

BLOB = 3
MAX_PACK_BYTES = 1 << 30
"""Index version 2 keeps 31-bit offsets unless a large-offset table follows: start a new
pack before one grows past this."""


def blob_id(data: bytes) -> bytes:
    """The raw 20-byte id Git gives `data` as a blob."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()


def _header(kind: int, size: int) -> bytes:
    out = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


class PackWriter:
    """Blobs appended one by one to packs in `objects/pack` (each finished and indexed by
    `close`, or when it reaches `MAX_PACK_BYTES`)."""

    def __init__(self, git_dir: str | Path) -> None:
        self.folder = Path(git_dir) / "objects" / "pack"
        self.folder.mkdir(parents=True, exist_ok=True)
        self._seen: set[bytes] = set()
        self._open()

    def _open(self) -> None:
        self._tmp = self.folder / f"tmp-baseline-{os.getpid()}.pack"
        self._file = open(self._tmp, "wb+")  # noqa: SIM115 - kept open across `add` calls
        self._file.write(b"PACK" + struct.pack(">II", 2, 0))  # the count is written at the end
        self._entries: list[tuple[bytes, int, int]] = []  # id, crc, offset

    def add(self, data: bytes) -> bytes:
        """Store `data` as a blob; its raw id."""
        oid = blob_id(data)
        if oid in self._seen:
            return oid
        self._seen.add(oid)
        packed = _header(BLOB, len(data)) + zlib.compress(data, 1)
        self._entries.append((oid, zlib.crc32(packed), self._file.tell()))
        self._file.write(packed)
        if self._file.tell() > MAX_PACK_BYTES:
            self._finish()
            self._open()
        return oid

    def close(self) -> None:
        self._finish()

    def _finish(self) -> None:
        handle, entries = self._file, self._entries
        if not entries:
            handle.close()
            self._tmp.unlink()
            return
        handle.seek(8)
        handle.write(struct.pack(">I", len(entries)))
        handle.flush()
        handle.seek(0)
        digest = hashlib.sha1(usedforsecurity=False)
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
        checksum = digest.digest()
        handle.seek(0, os.SEEK_END)
        handle.write(checksum)
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        name = f"pack-{checksum.hex()}"
        idx_tmp = self.folder / f"tmp-{name}.idx"
        idx_tmp.write_bytes(_index(entries, checksum))
        os.replace(self._tmp, self.folder / f"{name}.pack")
        os.replace(idx_tmp, self.folder / f"{name}.idx")


def _index(entries: Iterable[tuple[bytes, int, int]], pack_checksum: bytes) -> bytes:
    ordered = sorted(entries)
    fanout = [0] * 256
    for oid, _, _ in ordered:
        fanout[oid[0]] += 1
    total = 0
    for n in range(256):
        total += fanout[n]
        fanout[n] = total
    body = b"".join(
        [
            b"\377tOc",
            struct.pack(">I", 2),
            struct.pack(">256I", *fanout),
            b"".join(oid for oid, _, _ in ordered),
            b"".join(struct.pack(">I", crc) for _, crc, _ in ordered),
            b"".join(struct.pack(">I", offset) for _, _, offset in ordered),
            pack_checksum,
        ]
    )
    return body + hashlib.sha1(body, usedforsecurity=False).digest()
