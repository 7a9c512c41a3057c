"""Installed extensions and the permissions a person turned on, in the durable part of
`state.sqlite` (issue 16 §2; spec: facts-entities-collections-api, "Permission strings").

- `install` records the manifest, the partition and a random ref key, writes the
  manifest's declared predicates into the partition's vocabulary file, and turns
  nothing on: every permission starts off.
- `grant` / `revoke` change one switch; `allowed` and `check` read the grants
  table on every call (no cache), so a switch counts from the very next call,
  whichever process flipped it.
- `check` raises `PermissionRefused` (`… lacks knowledge permission <p>`) for
  single-object methods; `allowed` answers yes/no for query methods, which
  leave out what is not granted.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api.manifest import Manifest, validate_manifest
from knowledge_desktop.engine.api.permissions import Permission, as_permission, covers, parse_permission
from knowledge_desktop.engine.api.vocabulary_file import declaration_problems, declare, load_vocabulary
from knowledge_desktop.engine.api.wording import sentence
from knowledge_desktop.engine.errors import ApiError, ManifestInvalid, PermissionRefused, UnknownExtension
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.store.db import Store

KEY_BYTES = 32


@dataclass(frozen=True, slots=True)
class Installed:
    """One installed extension as it stands now."""

    name: str
    scope: str
    manifest: Manifest
    installed_at: str
    granted: tuple[Permission, ...]

    def as_json(self) -> dict[str, Any]:
        """The CLI's and the window's shape: every requested permission with its sentence and
        whether it is on."""
        on = {str(p) for p in self.granted}
        return {
            "name": self.name,
            "partition": self.scope,
            "description": self.manifest.description,
            "reason": self.manifest.reason,
            "installedAt": self.installed_at,
            "permissions": [
                {"permission": str(p), "sentence": sentence(p), "granted": str(p) in on}
                for p in self.manifest.permissions
            ],
            "predicates": [
                {
                    "predicate": d.name,
                    "cardinality": d.cardinality,
                    "description": d.description,
                    "aliases": list(d.aliases),
                }
                for d in self.manifest.predicates
            ],
        }


class Extensions:
    """The extensions installed in one vault. `root` is the vault folder: partitions are its
    top-level folders, and each holds its own vocabulary file."""

    def __init__(self, store: Store, root: Path) -> None:
        self.store = store
        self.root = root

    def partition_dir(self, scope: str) -> Path:
        """The folder of partition `scope`; an `ApiError` when there is none."""
        if not scope or scope.startswith(".") or "/" in scope or "\\" in scope or scope in ("..", "."):
            raise ApiError(f"{scope!r} is not a partition name")
        folder = self.root / scope
        if not folder.is_dir():
            raise ApiError(f"no partition named {scope!r} in {self.root}")
        return folder

    def install(self, manifest: Manifest, scope: str) -> Installed:
        """Install `manifest` into partition `scope` with every permission off. Its declared
        predicates join the partition's vocabulary (a conflict with what is there is listed as
        a `ManifestInvalid`). An extension of the same name must be uninstalled first."""
        folder = self.partition_dir(scope)
        row = (
            self.store.reader()
            .execute("SELECT scope FROM extensions_v1 WHERE name=?", (manifest.name,))
            .fetchone()
        )
        if row is not None:
            raise ApiError(f"extension {manifest.name} is already installed (in partition {row[0]})")
        problems = declaration_problems(manifest.predicates, load_vocabulary(folder))
        if problems:
            raise ManifestInvalid(problems)
        declare(folder, manifest.predicates, manifest.name)
        with self.store.write(durable=True) as w:
            w.execute(
                "INSERT INTO extensions_v1(name, scope, manifest, secret, installed_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    manifest.name,
                    scope,
                    json.dumps(manifest.raw, ensure_ascii=False),
                    secrets.token_bytes(KEY_BYTES),
                    utc_now_text(),
                ),
            )
            w.execute("DELETE FROM extension_grants_v1 WHERE name=?", (manifest.name,))
        return self.get(manifest.name)

    def get(self, name: str) -> Installed:
        """The extension `name`, or `UnknownExtension`."""
        row = (
            self.store.reader()
            .execute("SELECT name, scope, manifest, installed_at FROM extensions_v1 WHERE name=?", (name,))
            .fetchone()
        )
        if row is None:
            raise UnknownExtension(f"no extension named {name!r} is installed")
        return self._installed(row)

    def list(self) -> list[Installed]:
        """Every installed extension, by name."""
        rows = (
            self.store.reader()
            .execute("SELECT name, scope, manifest, installed_at FROM extensions_v1 ORDER BY name")
            .fetchall()
        )
        return [self._installed(r) for r in rows]

    def _installed(self, row: tuple[Any, ...]) -> Installed:
        name, scope, raw, installed_at = row
        try:
            manifest = validate_manifest(json.loads(raw))
        except (ValueError, ManifestInvalid) as exc:  # a row edited outside the app
            raise ApiError(f"extension {name}: its stored manifest is damaged ({exc})") from exc
        return Installed(name, scope, manifest, installed_at, self.granted(name))

    def granted(self, name: str) -> tuple[Permission, ...]:
        """The permissions turned on for `name`, read now (an unknown name has none)."""
        rows = (
            self.store.reader()
            .execute("SELECT permission FROM extension_grants_v1 WHERE name=? ORDER BY permission", (name,))
            .fetchall()
        )
        found = []
        for (text,) in rows:
            try:
                found.append(parse_permission(text))
            except ApiError:
                continue  # a row edited outside the app grants nothing
        return tuple(found)

    def _requested(self, name: str, permission: str | Permission) -> Permission:
        p = as_permission(permission)
        extension = self.get(name)
        if p not in extension.manifest.permissions:
            raise ApiError(f"{p} is not requested by the manifest of extension {name}")
        return p

    def grant(self, name: str, permission: str | Permission) -> bool:
        """Turn on `permission` (one the manifest requests); False when it was on already."""
        p = self._requested(name, permission)
        with self.store.write(durable=True) as w:
            cur = w.execute(
                "INSERT INTO extension_grants_v1(name, permission, granted_at) VALUES (?, ?, ?)"
                " ON CONFLICT(name, permission) DO NOTHING",
                (name, str(p), utc_now_text()),
            )
            return cur.rowcount > 0

    def revoke(self, name: str, permission: str | Permission) -> bool:
        """Turn off `permission`; False when it was off already."""
        p = self._requested(name, permission)
        with self.store.write(durable=True) as w:
            cur = w.execute("DELETE FROM extension_grants_v1 WHERE name=? AND permission=?", (name, str(p)))
            return cur.rowcount > 0

    def allowed(self, name: str, needed: str | Permission) -> bool:
        """Whether a grant of `name` covers `needed`, as the grants stand now."""
        want = as_permission(needed)
        return any(covers(g, want) for g in self.granted(name))

    def check(self, name: str, needed: str | Permission) -> None:
        """Nothing when `needed` is granted; `PermissionRefused` otherwise (`UnknownExtension`
        for a name that is not installed)."""
        want = as_permission(needed)
        if self.allowed(name, want):
            return
        self.get(name)  # an unknown extension is told so, not refused a permission
        raise PermissionRefused(f"extension {name} lacks knowledge permission {want}")

    def remove(self, name: str) -> Installed:
        """Forget extension `name` (uninstall): its row and ref key, its grants, the refs it was
        given and the folders a person ticked for it, in one durable transaction. Its quota rows
        stay, so a reinstall does not reset the day (`quotas`); the predicates it declared stay
        in the vocabulary file. What it was, for the caller to report."""
        installed = self.get(name)
        with self.store.write(durable=True) as w:
            for table in (
                "extension_grants_v1",
                "extension_refs_v1",
                "extension_selected_v1",
                "extensions_v1",
            ):
                w.execute(f"DELETE FROM {table} WHERE name=?", (name,))
        return installed

    def key(self, name: str) -> bytes:
        """The extension's secret ref key (engine/api/refs.py)."""
        row = self.store.reader().execute("SELECT secret FROM extensions_v1 WHERE name=?", (name,)).fetchone()
        if row is None:
            raise UnknownExtension(f"no extension named {name!r} is installed")
        return bytes(row[0])
