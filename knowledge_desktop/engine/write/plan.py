"""What an operation hands the publish path, and what the publish path hands back.

These types are the contract between the operations (`write/operations/`) and
the one publish path (`write/publish.py`): operations decide, publish does.
They hold only plain data, so a plan can be journaled as JSON before any file
is touched, and replayed by `resume` after a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from knowledge_desktop.engine.errors import KnownError


@dataclass(frozen=True, slots=True)
class Fence:
    """What the writer saw: the record's revision and the sha256 of its file's bytes
    (the CLI writes it `ID:REVISION:HASH`)."""

    record_id: str
    revision: int
    sha256: str

    @classmethod
    def parse(cls, text: str) -> Fence:
        record_id, sep, rest = text.partition(":")
        revision, sep2, sha = rest.partition(":")
        if not (record_id and sep and sep2 and revision.isdigit() and len(sha) == 64):
            raise WriteRejected(
                "fence-syntax", f"a fence is ID:REVISION:HASH (64 hex digits), not {text!r}", {}
            )
        return cls(record_id, int(revision), sha.lower())


@dataclass(frozen=True, slots=True)
class FileWrite:
    """One file the plan writes, whole."""

    path: str
    """Vault-relative, `/`-separated."""
    data: bytes | None
    """The new bytes; None deletes the file (it must exist: `expected_sha256` is required)."""
    expected_sha256: str | None
    """The bytes the file must still have when it is replaced; None: it must not exist."""
    record_id: str
    revision: int
    """The record's revision after the write."""

    @property
    def content(self) -> bytes:
        """The new bytes of a write that is not a deletion (ValueError for one)."""
        if self.data is None:
            raise ValueError(f"the plan deletes {self.path}; it has no new bytes")
        return self.data


GuardKind = Literal["withdrawn", "superseded"]


@dataclass(frozen=True, slots=True)
class GuardChange:
    """A durable guard row (spec: corrections-and-merges, Recovery and safeguards)."""

    scope: str
    record_id: str
    guard: GuardKind
    by_id: str | None
    lift: bool = False
    """True: remove the guard (only a published supersede undo lifts one)."""


@dataclass(slots=True)
class Plan:
    """Everything one operation will change, decided before anything is written."""

    operation: str
    """save | edit-body | new | correct | withdraw | supersede | unsupersede | merge |
    unmerge | annotate | adopt | undo"""
    target_id: str | None
    reason: str | None
    writes: list[FileWrite]
    replacement_id: str | None = None
    guards: list[GuardChange] = field(default_factory=list)
    impact_of: list[str] = field(default_factory=list)
    """Ids whose transitive dependents the receipt lists as impact."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Operation-specific receipt fields (a merge's conflicts, an adopt's skipped files)."""


@dataclass(frozen=True, slots=True)
class Request:
    """Who asks, under which id, with which payload (for idempotency)."""

    request_id: str
    operation: str
    payload: dict[str, Any]
    """The operation's arguments as JSON-able data: the same request id with a
    different payload is rejected (spec: corrections-and-merges, Recovery)."""
    actor: str
    expected_vault_id: str | None = None
    expected_ontology_fingerprint: str | None = None
    """For assertion writes: the fingerprint the writer read (spec: records-and-ontology,
    Fingerprints). None: the one current when the operation plans is the fence."""
    run_id: str | None = None
    """The run this write belongs to (an extension's run, issue 16); journaled with the entry
    so that its changes are listed and reverted together. None: a write of no run."""


class WriteRejected(KnownError):
    """A fence or a rule refused the operation; nothing was written (CLI exit 4).

    `code` names what failed (`fence-revision`, `fence-hash`, `fence-ontology`,
    `fence-vault`, `merged-target`, `not-active`…) and `current` carries the values
    the writer should have seen."""

    def __init__(self, code: str, message: str, current: dict[str, Any]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.current = current

    def as_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "current": self.current}}
