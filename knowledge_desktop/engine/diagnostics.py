"""Diagnostics: what is wrong in a vault, where, and how bad.

Every problem the engine finds in user files becomes a `Diagnostic` rather
than an exception, so one bad file never stops a scan. Codes are stable
strings; `CODES` is the single registry that documents them (the CLI's
`diagnostics --codes` and the reports read it), and a test checks that the
engine emits no code missing from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    path: str
    line: int | None
    record_id: str | None
    message: str

    def as_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line,
            "recordId": self.record_id,
            "message": self.message,
        }

    def sort_key(self) -> tuple[int, str, int, str]:
        return (SEVERITY_RANK[self.severity], self.path, self.line or 0, self.code)


def make(
    code: str, path: str, message: str, *, line: int | None = None, record_id: str | None = None
) -> Diagnostic:
    """Build a diagnostic with the registered severity of `code`."""
    severity, _ = CODES[code]
    return Diagnostic(code, severity, path, line, record_id, message)


E, W, I_ = Severity.ERROR, Severity.WARNING, Severity.INFO

# code -> (severity, what it means). Keep entries sorted by family; never rename a code.
CODES: dict[str, tuple[Severity, str]] = {
    # files
    "file-unreadable": (E, "The file could not be read (permissions, I/O error)."),
    "file-too-large": (E, "The file is larger than the engine reads; it is listed, not parsed."),
    "file-binary": (E, "The file contains NUL bytes; it is not text."),
    "file-not-utf8": (E, "The file is not valid UTF-8; the line of the first bad byte is given."),
    "symlink-outside-vault": (E, "A symbolic link points outside the vault; it is not followed."),
    "symlink-broken": (E, "A symbolic link loops or points at nothing; it is not followed."),
    "folder-unreadable": (E, "A folder could not be listed (permissions, I/O error); nothing in it is read."),
    "file-name-not-utf8": (E, "A file or folder name is not UTF-8; it is shown with \\x escapes, not read."),
    "file-changing": (W, "The file was being written each time it was read; it is read again next scan."),
    "line-ends-cr": (E, "The frontmatter ends lines with a lone carriage return (classic Mac OS)."),
    "outside-partition": (W, "A Markdown file lies at the vault root, outside every partition."),
    "not-a-record": (W, "A Markdown file names a knowledge-record format other than knowledge-record-v1."),
    "plain-note": (I_, "A plain Markdown note (no knowledge-record-v1 frontmatter): listed, linked."),
    # frontmatter and YAML
    "frontmatter-unclosed": (E, "The opening --- of the frontmatter has no closing ---."),
    "frontmatter-too-large": (E, "The frontmatter block is larger than the engine accepts."),
    "yaml-syntax": (E, "The frontmatter is not valid YAML."),
    "yaml-duplicate-key": (E, "A mapping in the frontmatter repeats a key (YAML 1.2 forbids it)."),
    "yaml-too-complex": (E, "The frontmatter expands past the size limit (alias bomb or deep nesting)."),
    "frontmatter-not-mapping": (E, "The frontmatter is YAML but not a mapping of keys to values."),
    # envelope and kinds
    "envelope-invalid": (E, "A field every record needs is missing or malformed."),
    "page-invalid": (E, "A page-specific field is malformed."),
    "claim-invalid": (E, "A claim field is missing or malformed."),
    "relationship-invalid": (E, "A relationship field is missing or malformed."),
    "date-invalid": (E, "A date or timestamp field breaks the format rules for that field."),
    "empty-value": (E, "A field holds an empty or null value; unknown values must be omitted."),
    "field-not-applicable": (W, "A field is set on a kind of record it does not apply to."),
    "lifecycle-metadata-invalid": (E, "Lifecycle or merge fields disagree with each other."),
    "lifecycle-guarded": (
        W,
        "The file says a lifecycle its durable guard overrides (a withdrawn or superseded "
        "record restored from a stale copy); reads follow the guard.",
    ),
    "invalid-recall": (E, "The recall block breaks its bounds; it is never injected."),
    "scope-mismatch": (E, "The record's scope differs from the partition folder it is in."),
    "duplicate-id": (E, "Several files share one id; exact lookup finds none of them."),
    # ontology
    "ontology-activation-failed": (E, "The partition's ontology manifest could not be activated."),
    "ontology-manifest-invalid": (E, "An ontology manifest is malformed."),
    "unknown-type": (E, "A page's type is not defined by the active ontology."),
    "unclassified-page": (W, "A page has no type and no ontology prefix classifies its path."),
    "unknown-relationship-label": (E, "A relationship's label is not a declared relationship."),
    "field-invalid": (E, "A page field breaks the ontology (type, required, allowed values)."),
    "field-undeclared": (I_, "A page field is not declared by its type; it is kept as is."),
    "misfiled": (W, "The record is outside the directory its ontology type declares."),
    "ontology-unavailable": (E, "The record is typed but its partition has no active ontology."),
    # references
    "reference-missing": (E, "A record id in a reference field matches no record."),
    "reference-wrong-kind": (E, "A reference points at a record of a kind the field does not allow."),
    "endpoint-type-not-permitted": (E, "A relationship endpoint's page type is not allowed by the label."),
    "merge-chain-invalid": (E, "A merged_into chain has a cycle, a dead end or more than 8 hops."),
    "supersede-chain-invalid": (W, "A superseded_by chain loops or runs past 32 records; it ends nowhere."),
    "evidence-unverified": (W, "An evidence locator's target is missing or its hash differs."),
    # links
    "link-missing": (W, "A link names no record in its partition, nor a note or file of the vault."),
    "link-ambiguous": (W, "A link names several records (it stays unlinked) or notes (the nearest wins)."),
    "link-outside-partition": (W, "A link's path leaves the partition."),
    "links-truncated": (W, "The body has more links than are followed, or is too long to search in full."),
    # merges
    "merge-candidate": (
        I_,
        "Pages of one type may be one entity (a shared identity alias, or the same title); "
        "confirm before merging.",
    ),
    # vault
    "state-missing": (E, "The vault's state.sqlite or .knowledge/ disappeared; durable guards were lost."),
    "state-damaged": (E, "state.sqlite was unreadable and set aside; some durable tables were lost."),
    "state-repaired": (W, "state.sqlite was unreadable and set aside; its durable tables were recovered."),
    "state-outside-vault": (W, "The .knowledge folder is a link out of the vault; state is kept elsewhere."),
    # the write side (docs/writing.md)
    "write-conflict": (E, "A write met an outside edit of this file and wrote nothing; review it."),
    "write-interrupted": (E, "A write was interrupted and is not finished; `knowledge resume` it."),
}
