"""Ids and file names for new records (ARCHITECTURE.md, "Details the spec leaves open";
spec: records-and-ontology, "Filenames and links").

An id is a kind prefix and a time-sortable random part: ten Crockford
base-32 characters of the millisecond clock (so ids sort by creation) and
ten random ones (50 bits: two records created in one millisecond do not
meet). A file name is the title made into a slug in the type's directory;
when that name is taken (on disk, compared without case so the vault stays
portable to case-insensitive systems) it gets a short suffix from the id.
"""

from __future__ import annotations

import os
import re
import secrets
import time
import unicodedata
from pathlib import Path

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
PREFIXES = {"page": "pg", "claim": "cl", "relationship": "rl", "request": "rq", "run": "run"}
KIND_DIRECTORIES = {"claim": "claims/", "relationship": "relationships/"}
SLUG_MAX = 80
SUFFIX_LENGTH = 6


def new_id(kind: str, now_ms: int | None = None) -> str:
    """A fresh record id such as `pg_01JF3Q4W7ZK2M8D5XN4P`."""
    stamp = int(time.time() * 1000) if now_ms is None else now_ms
    time_part = "".join(_CROCKFORD[(stamp >> shift) & 31] for shift in range(45, -1, -5))
    random_part = "".join(secrets.choice(_CROCKFORD) for _ in range(10))
    return f"{PREFIXES[kind]}_{time_part}{random_part}"


def slug(title: str) -> str:
    """A title as a file name stem: ASCII letters and digits joined by hyphens."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return words[:SLUG_MAX].rstrip("-")


def place(root: Path, scope: str, directory: str, title: str, record_id: str) -> str:
    """A free vault-relative path for a new record: `<scope>/<directory><slug>.md`,
    with `-<short id>` (then the whole id) when that name is taken."""
    folder = f"{scope}/{directory.strip('/')}".rstrip("/")
    stem = slug(title)
    short = record_id.rsplit("_", 1)[-1][-SUFFIX_LENGTH:].lower()
    candidates = [f"{stem}.md", f"{stem}-{short}.md"] if stem else []
    candidates.append(f"{stem}-{record_id.lower()}.md" if stem else f"{record_id.lower()}.md")
    taken = _names_in(root / folder)
    for name in candidates:
        if name.lower() not in taken:
            return f"{folder}/{name}"
    raise FileExistsError(f"{folder}/{candidates[-1]}")


def _names_in(folder: Path) -> set[str]:
    try:
        return {name.lower() for name in os.listdir(folder)}
    except OSError:
        return set()
