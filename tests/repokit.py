"""Documentation repositories for the extraction tests: files on disk plus commits made
with pygit2 (no git executable), with fixed signatures and times so commit ids repeat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2

from knowledge_desktop.engine.extraction import ExtractOptions, Extractor, extract

EPOCH = 1_760_000_000


class RepoKit:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._repo: pygit2.Repository | None = None
        self._tick = 0

    # -- files ------------------------------------------------------------------
    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return path

    def files(self) -> dict[str, bytes]:
        """Every file of the working folder except `.git`, as a commit snapshot."""
        return {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(self.root).parts
        }

    # -- history ----------------------------------------------------------------
    @property
    def repo(self) -> pygit2.Repository:
        if self._repo is None:
            self._repo = pygit2.init_repository(str(self.root), initial_head="main")
        return self._repo

    def commit(
        self,
        message: str,
        files: dict[str, bytes | str] | None = None,
        *,
        parents: list[str] | None = None,
        ref: str | None = "HEAD",
    ) -> str:
        """Commit `files` (a full snapshot; default: the working folder) on `ref` with
        `parents` (default: HEAD's commit, if any). Returns the commit id."""
        repo = self.repo
        snapshot = self.files() if files is None else files
        index = pygit2.Index()
        for path, data in sorted(snapshot.items()):
            blob = repo.create_blob(data.encode("utf-8") if isinstance(data, str) else data)
            index.add(pygit2.IndexEntry(path, blob, pygit2.enums.FileMode.BLOB))
        tree = index.write_tree(repo)
        if parents is None:
            parents = [] if repo.head_is_unborn else [str(repo.head.target)]
        self._tick += 1
        sig = pygit2.Signature("Ada", "ada@example.org", EPOCH + self._tick * 60, 0)
        oid = repo.create_commit(ref, sig, sig, message, tree, [pygit2.Oid(hex=p) for p in parents])
        return str(oid)

    def make_shallow(self, boundary: str, dropped: str) -> None:
        """What a shallow clone looks like on disk, made without git: the boundary listed
        in `.git/shallow` and its parent's (loose) commit object absent."""
        (self.root / ".git" / "shallow").write_text(boundary + "\n")
        loose = self.root / ".git" / "objects" / dropped[:2] / dropped[2:]
        loose.chmod(0o644)
        loose.unlink()

    def tag(self, name: str, sha: str) -> None:
        self.repo.references.create(f"refs/tags/{name}", pygit2.Oid(hex=sha))

    # -- extraction -------------------------------------------------------------
    def extract(self, **options: Any) -> dict[str, Any]:
        memory = options.pop("memory", None)
        return extract(self.root, ExtractOptions(**options), memory)

    def extractor(self, **options: Any) -> Extractor:
        return Extractor(self.root, ExtractOptions(**options))


def entity(document: dict[str, Any], entity_id: str) -> dict[str, Any]:
    found = [e for e in document["entities"] if e["id"] == entity_id]
    assert found, f"no entity {entity_id!r} in {[e['id'] for e in document['entities']]}"
    return found[0]


def ids_of(document: dict[str, Any], kind: str | None = None) -> list[str]:
    return [e["id"] for e in document["entities"] if kind is None or e["kind"] == kind]


def codes(document: dict[str, Any], area: str) -> set[str]:
    return {r["code"] for r in document["coverage"][area]["reasons"]}


def region(e: dict[str, Any], n: int = 0) -> dict[str, Any]:
    regions = [ev for ev in e["evidence"] if ev["kind"] == "document-region"]
    return regions[n]
