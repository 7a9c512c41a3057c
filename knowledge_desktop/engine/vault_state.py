"""Where a vault's state lives, and what happened to it since the vault was last open.

`open_state(root)` finds or makes the state folder (`.knowledge/`, or the
user's cache folder for a vault we cannot write to), opens `state.sqlite`
and decides what the vault must report about it:

- **Lost**: the state existed before and is gone — `.knowledge/` deleted
  (known from the list of vaults opened before, kept in the user's state
  folder), `state.sqlite` deleted or emptied while the manifest stayed, or
  replaced by an empty database. A new database is made (a vault must
  open) and `state_lost_at` / `state_lost_reason` are kept in its identity.
- **Damaged**: the file is there but SQLite cannot use it (cut short,
  overwritten). It is set aside, never deleted, its durable rows copied
  over where readable (`store/recovery.py`), and the incident kept in the
  identity (`state_damaged`) with what was lost.

Order matters so that a process killed at any point leaves nothing the
next open mistakes for a loss: the database gets its identity first, the
manifest is written after it, and the vault is remembered last.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.errors import StateDamaged
from knowledge_desktop.engine.fs.atomic import write_atomic
from knowledge_desktop.engine.fs.inside import inside
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.store import faults, recovery
from knowledge_desktop.engine.store.db import Store

STATE_DIR = ".knowledge"
MANIFEST = "manifest.json"
STATE_DB = "state.sqlite"
VAULT_FORMAT = "knowledge-vault-v1"
APP_DIR = "knowledge-desktop"
KNOWN_VAULTS = "vaults.json"
GITIGNORE = ".gitignore"


@dataclass
class OpenedState:
    state_dir: Path
    store: Store
    read_only: bool
    vault_id: str
    outside: bool = False
    """`.knowledge` is a link out of the vault: not followed, the state is in the cache."""
    incident: dict[str, Any] | None = None
    """The damage this open found and repaired (set aside, rebuilt), if any."""


def open_state(root: Path) -> OpenedState:
    """Open the state of the vault at `root` (a resolved folder); see the module docstring."""
    own = root / STATE_DIR
    remembered = _known_vaults().get(str(root))
    lost: str | None = None
    if not own.exists() and remembered is not None:
        lost = f"the vault's {STATE_DIR}/ folder was deleted"
    state_dir, read_only = own, False
    # A `.knowledge` that is a link out of the vault (a hostile clone can hold one)
    # would have the app write its state, and replace a manifest.json, wherever it
    # points: it is not followed, and the state lives in the cache folder instead.
    outside = leaves_vault(root, own)
    try:
        if outside:
            raise FileExistsError(own)
        own.mkdir(exist_ok=True)
        if not os.access(own, os.W_OK):
            raise PermissionError(own)
        _ignore_all(own)
    except OSError:
        state_dir, read_only, lost = cache_state_dir(root), not outside, None
    manifest_id = _manifest_id(state_dir / MANIFEST)
    # Set when this state folder held a database before (its manifest is written after it).
    db_path = state_dir / STATE_DB
    if manifest_id is not None and lost is None:
        if not db_path.exists():
            lost = f"{STATE_DB} was deleted"
        elif db_path.stat().st_size == 0:
            lost = f"{STATE_DB} was emptied"
    # Without a manifest an empty file is a first open stopped before its first commit
    # (SQLite makes the file at connect and the manifest follows the first commit):
    # nothing was ever kept in it, so it is no damage to report.
    _remove_empty(db_path)
    store, incident = _open_checked(db_path)
    own_id = _manifest_id(own / MANIFEST) if read_only and not outside else None
    vault_id = manifest_id or store.identity("vault_id") or own_id or (remembered or {}).get("vaultId")
    vault_id = vault_id if isinstance(vault_id, str) else f"vlt_{uuid.uuid4().hex}"
    if store.identity("vault_id") is None:
        if manifest_id is not None and lost is None and incident is None:
            lost = f"{STATE_DB} was replaced by an empty database"
        store.set_identity("vault_id", vault_id)
        store.set_identity("created_at", utc_now_text())
    if lost is not None:
        store.set_identity("state_lost_at", utc_now_text())
        store.set_identity("state_lost_reason", lost)
    if incident is not None:
        record_incident(store, incident)
    if manifest_id is None:
        write_manifest(state_dir, vault_id)
    if not read_only and (remembered or {}).get("vaultId") != vault_id:
        _remember(root, vault_id)
    return OpenedState(state_dir, store, read_only, vault_id, outside, incident)


def _ignore_all(state_dir: Path) -> None:
    """`.knowledge/.gitignore` of `*`: a user's own Git never sees the app's state (issue 15)."""
    ignore = state_dir / GITIGNORE
    if not ignore.exists():
        with contextlib.suppress(OSError):  # the vault opens without it
            write_atomic(ignore, b"*\n")


def _open_checked(db_path: Path) -> tuple[Store, dict[str, Any] | None]:
    """The store at `db_path`, after setting a damaged file aside (and the incident)."""
    problem = recovery.inspect(db_path) if db_path.exists() else None
    marker = faults.suspect(db_path)
    if problem is None:
        try:
            store = Store(db_path)
            try:
                store.check_durable()
                if marker.exists():  # found damaged while open: check every page this time
                    store.check_all()
            except BaseException:
                store.close()
                raise
            marker.unlink(missing_ok=True)
            return store, None
        except StateDamaged as exc:
            cause = exc.__cause__
            problem = str(cause) if cause is not None else str(exc)
    return set_aside_and_salvage(db_path, problem)


def set_aside_and_salvage(db_path: Path, problem: str) -> tuple[Store, dict[str, Any]]:
    """Set the damaged database at `db_path` aside, make a new one holding every durable row
    still readable from it, and describe the incident (kept by `record_incident`). The one
    path for damage found at open and damage met while a command runs (`Vault.repair_state`)."""
    faults.suspect(db_path).unlink(missing_ok=True)
    at = utc_now_text()
    aside = recovery.set_aside(db_path, at)
    store = Store(db_path)
    salvaged = recovery.salvage(aside, store)
    incident = {
        "at": at,
        "problem": problem,
        "movedTo": aside.name,
        "copied": salvaged.copied,
        "lost": salvaged.lost,
        "partial": salvaged.partial,
    }
    return store, incident


def record_incident(store: Store, incident: dict[str, Any]) -> None:
    """Keep a damage incident in the new database's identity, after those before it."""
    store.set_identity("state_damaged", json.dumps([*damage_incidents(store), incident]))


def damage_incidents(store: Store) -> list[dict[str, Any]]:
    """Every time this vault's database was found damaged and set aside, oldest first."""
    raw = store.identity("state_damaged")
    try:
        found = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []


def write_manifest(state_dir: Path, vault_id: str) -> None:
    manifest = {
        "expectedVaultId": vault_id,
        "format": VAULT_FORMAT,
        "formatVersion": 1,
        "created_at": utc_now_text(),
    }
    write_atomic(state_dir / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))


def _manifest_id(path: Path) -> str | None:
    try:
        data: Any = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and isinstance(data.get("expectedVaultId"), str):
        return str(data["expectedVaultId"])
    return None


def _remove_empty(db_path: Path) -> None:
    """An empty file holds nothing to keep; SQLite would take it for a new database."""
    with contextlib.suppress(OSError):
        if db_path.stat().st_size == 0:
            db_path.unlink()


def cache_state_dir(root: Path) -> Path:
    """Where a read-only vault's state lives: the user's cache folder, keyed by the vault's path."""
    from platformdirs import user_cache_dir

    key = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:24]
    folder = Path(user_cache_dir(APP_DIR)) / "vaults" / key
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# -- the vaults opened before (so a deleted .knowledge/ is noticed) ---------------------------
def _known_vaults_file() -> Path:
    from platformdirs import user_state_dir

    return Path(user_state_dir(APP_DIR)) / KNOWN_VAULTS


def _known_vaults() -> dict[str, dict[str, Any]]:
    try:
        data: Any = json.loads(_known_vaults_file().read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def _remember(root: Path, vault_id: str) -> None:
    """Note that `root` has its state in `.knowledge/`; best effort (a read-only home is fine)."""
    known = _known_vaults()
    known[str(root)] = {"vaultId": vault_id, "since": utc_now_text()}
    with contextlib.suppress(OSError):
        write_atomic(_known_vaults_file(), (json.dumps(known, indent=1, sort_keys=True) + "\n").encode())


def leaves_vault(root: Path, path: Path) -> bool:
    """Whether `path`, a link in the vault, leads outside it."""
    if not path.is_symlink():
        return False
    return not inside(os.path.realpath(root), os.path.realpath(path))


def state_findings(store: Store, state_dir: Path, outside: bool) -> list[dg.Diagnostic]:
    """What happened to the vault's state: standing errors, so a loss of durable guards
    is never hidden behind a silently rebuilt index."""
    out: list[dg.Diagnostic] = []
    where = f"{STATE_DIR}/{STATE_DB}"
    lost = store.identity("state_lost_at")
    if lost:
        why = store.identity("state_lost_reason") or "state.sqlite was missing"
        out.append(
            dg.make(
                "state-missing",
                where,
                f"{why}, and a new one was made at {lost}; withdrawal and supersession guards, "
                "receipts and history from before are lost — restore it from a backup if you "
                "have one",
            )
        )
    if outside:
        out.append(
            dg.make(
                "state-outside-vault",
                STATE_DIR,
                f"{STATE_DIR} is a symbolic link to outside the vault and is not followed; "
                f"the index is kept in {state_dir} instead",
            )
        )
    out.extend(incident_finding(incident) for incident in damage_incidents(store))
    return out


def _partial_losses(partial: Any) -> str:
    """ "journal (12 rows kept, 3 lost)" for each durable table read only in part."""
    if not isinstance(partial, dict):
        return ""
    parts = []
    for table, found in sorted(partial.items()):
        counts = found if isinstance(found, dict) else {}
        lost, bound = counts.get("lost"), counts.get("atMost")
        said = lost if lost is not None else f"at most {bound}" if bound is not None else "some"
        parts.append(f"{table} ({counts.get('kept', 0)} rows kept, {said} lost)")
    return ", ".join(parts)


def incident_finding(incident: dict[str, Any]) -> dg.Diagnostic:
    """What one damage incident is reported as: `state-repaired` when every durable row came
    over from the damaged file (only projections were rebuilt), `state-damaged` with what
    was lost otherwise."""
    where = f"{STATE_DIR}/{STATE_DB}"
    head = (
        f"state.sqlite could not be used ({incident.get('problem')}) and was set aside as "
        f"{STATE_DIR}/{incident.get('movedTo')} at {incident.get('at')}; the index was rebuilt "
        "from the Markdown"
    )
    lost_tables = incident.get("lost") or []
    partial = _partial_losses(incident.get("partial"))
    if not lost_tables and not partial:
        nothing = "and every durable table was copied from it, so nothing was lost"
        return dg.make("state-repaired", where, f"{head}, {nothing}")
    what = []
    if lost_tables:
        what.append(f"these durable tables could not be read from it: {', '.join(map(str, lost_tables))}")
    if partial:
        what.append(f"these were read only in part: {partial}")
    return dg.make(
        "state-damaged",
        where,
        f"{head}, but {'; '.join(what)} — their withdrawal and supersession guards, "
        "receipts or history are lost unless you restore a backup",
    )
