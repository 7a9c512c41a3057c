"""From a file's bytes to a `ParsedFile`: everything that depends on that file alone.

This is the pure, per-file half of reconcile. It runs in worker processes, so
its input and output are plain picklable data, and it never raises on user
content: every problem becomes a diagnostic. What needs the rest of the vault
(ontology, other records, link targets) is decided later, in `derive`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.links.extract import (
    MAX_LINK_SCAN_CHARS,
    MAX_LINKS,
    RawLink,
    extract,
    scanned_part,
)
from knowledge_desktop.engine.records import dates, frontmatter, models, notes, yaml12
from knowledge_desktop.engine.records.notes import NoteMeta

MAX_FILE_BYTES = 8 * 1024 * 1024
"""The largest file that is read: a larger one is listed, diagnosed (`file-too-large`)
and never read, so no file costs more memory or parse time than this."""

FileStatus = Literal["record", "unrecognized", "note"]
"""A note is Markdown that is not a record and does not try to be one (issue 25 §1):
no frontmatter, frontmatter without a knowledge-record format, or nothing at all."""

_DECLARES_FORMAT = re.compile(r"^format[ \t]*:[ \t]*['\"]?knowledge-record", re.M)
"""A frontmatter line claiming the record format: YAML that fails to load with it is a
broken record, not a note."""


@dataclass(slots=True)
class ParsedFile:
    path: str
    scope: str | None
    sha256: str
    size: int
    status: FileStatus
    data: dict[str, Any] | None = None
    """The frontmatter mapping as plain data (unknown keys included)."""
    key_lines: dict[str, int] = field(default_factory=dict)
    """Dotted key path -> 1-based file line."""
    body_line: int = 1
    body_chars: int = 0
    body_blank: bool = True
    links: list[RawLink] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    structurally_valid: bool = False
    """Envelope and kind fields valid, before ontology and references are checked."""
    note: NoteMeta | None = None
    """A note's metadata (status "note" only)."""

    @property
    def record_id(self) -> str | None:
        if self.status != "record" or self.data is None:
            return None
        value = self.data.get("id")
        return value if isinstance(value, str) else None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse_bytes(path: str, scope: str | None, data: bytes) -> ParsedFile:
    """Parse one vault file. `path` is vault-relative with `/`; `scope` its partition."""
    return parse_with_body(path, scope, data)[0]


def parse_with_body(
    path: str, scope: str | None, data: bytes, sha256: str | None = None
) -> tuple[ParsedFile, str | None]:
    """`parse_bytes`, and a record's body as it was split from its frontmatter (None for
    any other file): the reader indexes its text (`keyword_text`) without decoding and
    splitting the bytes a second time. `sha256`: the bytes' hash when the caller has it."""
    parsed = ParsedFile(path, scope, sha256 or sha256_hex(data), len(data), "unrecognized")
    body = None
    try:
        body = _parse_into(parsed, data)
    except Exception as exc:  # a bug must not stop a scan; it is reported with the file
        parsed.status = "unrecognized"
        parsed.structurally_valid = False
        parsed.diagnostics.append(dg.make("file-unreadable", path, f"internal error while parsing: {exc!r}"))
    return parsed, body if parsed.status == "record" else None


def too_large_message(size: int) -> str:
    return f"the file is {_mib(size)}; files over {_mib(MAX_FILE_BYTES)} are listed but not read"


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB" if size % (1024 * 1024) else f"{size // (1024 * 1024)} MiB"


def _parse_into(parsed: ParsedFile, data: bytes) -> str | None:
    """Fill `parsed` from `data`; the body when the frontmatter split it off."""
    path = parsed.path
    diags = parsed.diagnostics
    if len(data) > MAX_FILE_BYTES:
        diags.append(dg.make("file-too-large", path, too_large_message(len(data))))
        return None
    if not data.strip():
        _as_note(parsed, None, "")
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        diags.append(dg.make("file-not-utf8", path, "the file is UTF-16 text; save it as UTF-8", line=1))
        return None
    if b"\x00" in data:
        diags.append(
            dg.make(
                "file-binary",
                path,
                "the file contains NUL bytes, so it is binary data rather than text",
                line=data.count(b"\n", 0, data.index(b"\x00")) + 1,
            )
        )
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        diags.append(
            dg.make(
                "file-not-utf8",
                path,
                f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} (at offset {exc.start}) is not"
                " UTF-8; save the file as UTF-8",
                line=line,
            )
        )
        return None
    text = text.removeprefix("\ufeff")
    opening = text[: text.find("\n") + 1] or text  # the first line with its line end
    lone_cr = frontmatter.lone_cr_line(opening) if opening.startswith("---") else None
    try:
        split = frontmatter.split(text) if lone_cr is None else None
    except frontmatter.FrontmatterError as exc:
        diags.append(dg.make(exc.code, path, exc.message, line=exc.line))
        return None
    if split is not None:
        lone_cr = frontmatter.lone_cr_line(split.yaml_text, split.yaml_first_line)
    if lone_cr is not None:
        diags.append(
            dg.make(
                "line-ends-cr",
                path,
                "a line ends with a lone carriage return (classic Mac OS line endings), which the"
                " frontmatter cannot hold; save the file with LF or CRLF line endings",
                line=lone_cr,
            )
        )
        return None
    if split is None:
        _as_note(parsed, None, text)
        return None
    parsed.body_line = split.body_first_line
    parsed.body_chars = len(split.body)
    parsed.body_blank = not split.body.strip()
    offset = split.yaml_first_line
    try:
        loaded = yaml12.load(split.yaml_text, offset)
    except yaml12.YamlError as exc:
        line = exc.line + offset if exc.line is not None else 1
        diags.append(dg.make(exc.code, path, exc.message, line=line))
        if not _DECLARES_FORMAT.search(split.yaml_text):
            _as_note(parsed, None, split.body)  # a note's broken properties: its body still reads
        return None
    if not isinstance(loaded.data, dict):
        diags.append(
            dg.make(
                "frontmatter-not-mapping",
                path,
                "the frontmatter must be a mapping of keys to values",
                line=offset,
            )
        )
        if not _DECLARES_FORMAT.search(split.yaml_text):
            _as_note(parsed, None, split.body)
        return None
    fm: dict[str, Any] = loaded.data
    parsed.data = fm
    parsed.key_lines = {key: line + offset for key, line in loaded.key_lines.items()}
    if fm.get("format") != models.FORMAT:
        if not _tries_record(fm.get("format")):
            parsed.key_lines = {}  # a note's keys are no record's: nothing cites their lines
            _as_note(parsed, fm, split.body)
            return None
        if parsed.scope is not None:
            found = fm.get("format")
            diags.append(
                dg.make(
                    "not-a-record",
                    path,
                    "frontmatter has no format: knowledge-record-v1"
                    + (f" (format is {found!r})" if found is not None else ""),
                    line=parsed.key_lines.get("format", offset),
                )
            )
        return None
    validate_record(parsed, fm)
    if parsed.status == "record":
        parsed.links = _links(parsed, split)
    return split.body


def _tries_record(declared: Any) -> bool:
    """Whether a frontmatter `format` other than knowledge-record-v1 still claims the
    record format (another version, a typo of case): such a file stays an unrecognized
    record with its `not-a-record` warning, as the conformance of records wants."""
    return isinstance(declared, str) and declared.strip().lower().startswith("knowledge-record")


def _as_note(parsed: ParsedFile, fm: dict[str, Any] | None, body: str) -> None:
    """Make `parsed` a note: its metadata, its links, and the one `plain-note` finding."""
    parsed.status = "note"
    parsed.data = fm
    parsed.body_chars = len(body)
    parsed.body_blank = not body.strip()
    meta, masked = notes.read_note(parsed.path, fm, body)
    parsed.note = meta
    scanned = scanned_part(masked)
    links = notes.links(scanned, MAX_LINKS + 1)
    parsed.links = _bounded(parsed, links, scanned, len(masked))
    parsed.diagnostics.append(
        dg.make(
            "plain-note",
            parsed.path,
            "a plain Markdown note (no knowledge-record-v1 frontmatter): listed, linked and"
            " searchable as it is; adopt it to make it a record",
        )
    )


def _links(parsed: ParsedFile, split: frontmatter.Split) -> list[RawLink]:
    """The body's links within the bounds, with a diagnostic when it holds more."""
    scanned = scanned_part(split.body)
    links = extract(scanned, MAX_LINKS + 1)
    return _bounded(parsed, links, scanned, len(split.body))


def _bounded(parsed: ParsedFile, links: list[RawLink], scanned: str, body_length: int) -> list[RawLink]:
    """`links` within MAX_LINKS, with `links-truncated` when the body held more or was cut
    short (`scanned` is the part searched of a body `body_length` long)."""
    body_first_line = parsed.body_line
    if len(links) > MAX_LINKS:
        message = f"the body has more than {MAX_LINKS:,} links; those from this line on are not followed"
        line = body_first_line + links[MAX_LINKS].line
        del links[MAX_LINKS:]
    elif len(scanned) < body_length:
        message = (
            f"the body is longer than {MAX_LINK_SCAN_CHARS // (1024 * 1024)} MiB; links from this"
            " line on are not looked for"
        )
        line = body_first_line + scanned.count("\n")
    else:
        return links
    parsed.diagnostics.append(
        dg.make("links-truncated", parsed.path, message, line=line, record_id=parsed.record_id)
    )
    return links


def validate_record(parsed: ParsedFile, fm: dict[str, Any]) -> None:
    """Judge the envelope, the kind's own fields, lifecycle metadata and recall."""
    path, lines = parsed.path, parsed.key_lines
    record_id = fm.get("id") if isinstance(fm.get("id"), str) else None
    before = len(parsed.diagnostics)
    empty = _empty_fields(fm)
    for key in empty:
        parsed.diagnostics.append(
            dg.make(
                "empty-value",
                path,
                f"{key} is empty; omit a field whose value is unknown",
                line=lines.get(key),
                record_id=record_id,
            )
        )
    present = {k: v for k, v in fm.items() if k not in empty}
    envelope_errors = _errors(models.Envelope, present, "envelope-invalid", parsed, record_id)
    if envelope_errors:
        parsed.status = "unrecognized"
        return
    parsed.status = "record"
    kind = str(fm["kind"])
    _errors(models.KIND_MODELS[kind], present, f"{kind}-invalid", parsed, record_id)
    _errors(models.LifecycleFields, present, "lifecycle-metadata-invalid", parsed, record_id)
    _lifecycle_consistency(parsed, fm, kind, record_id)
    if kind == "claim" and parsed.body_blank:
        parsed.diagnostics.append(
            dg.make(
                "claim-invalid",
                path,
                "a claim's text is its body, and the body is empty",
                line=parsed.body_line,
                record_id=record_id,
            )
        )
    for key, kinds in models.FIELD_KINDS.items():
        if key in fm and kind not in kinds:
            parsed.diagnostics.append(
                dg.make(
                    "field-not-applicable",
                    path,
                    f"{key} applies to {' and '.join(kinds)} records, not to a {kind}",
                    line=lines.get(key),
                    record_id=record_id,
                )
            )
    if kind == "claim" and fm.get("claim_kind") != "commitment":
        for key in ("owner", "due_at"):
            if key in fm:
                parsed.diagnostics.append(
                    dg.make(
                        "field-not-applicable",
                        path,
                        f"{key} applies only to commitment claims",
                        line=lines.get(key),
                        record_id=record_id,
                    )
                )
    _check_validity_interval(parsed, fm, record_id)
    if scope_mismatch := (parsed.scope is not None and fm.get("scope") != parsed.scope):
        parsed.diagnostics.append(
            dg.make(
                "scope-mismatch",
                path,
                f"scope is {fm.get('scope')!r} but the file is in partition {parsed.scope!r}",
                line=lines.get("scope"),
                record_id=record_id,
            )
        )
    if "recall" in present:
        _errors(models.Recall, present["recall"], "invalid-recall", parsed, record_id, prefix="recall")
    new = parsed.diagnostics[before:]
    parsed.structurally_valid = not scope_mismatch and not any(
        d.severity is dg.Severity.ERROR and d.code != "invalid-recall" for d in new
    )


def _empty_fields(fm: dict[str, Any]) -> list[str]:
    out = []
    for key in models.OPTIONAL_FIELDS:
        if key in fm:
            value = fm[key]
            if value is None or (isinstance(value, str) and not value.strip()):
                out.append(key)
    return out


def _errors(
    model: type[models._Open],
    value: Any,
    code: str,
    parsed: ParsedFile,
    record_id: str | None,
    prefix: str = "",
) -> int:
    try:
        model.model_validate(value)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc = ".".join(str(part) for part in error["loc"])
            key = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
            line = _line_for(parsed.key_lines, key) or 1  # a missing key: the block's start
            this_code = code
            if code == "invalid-recall":
                pass  # any flaw in the block is the one recall diagnostic
            elif error["type"] == "date_invalid":
                this_code = "date-invalid"
            elif error["type"] == "empty_value":
                this_code = "empty-value"
            message = _message(key, error)
            parsed.diagnostics.append(
                dg.make(this_code, parsed.path, message, line=line, record_id=record_id)
            )
        return len(exc.errors())
    return 0


def _message(key: str, error: Any) -> str:
    kind, msg = error["type"], error["msg"]
    if kind == "missing":
        return f"{key} is required"
    if kind == "too_short":
        return f"{key} must not be empty"
    if kind == "literal_error":
        return f"{key}: {msg[0].lower()}{msg[1:]}"
    if kind == "extra_forbidden":
        return f"{key} is not allowed here"
    return f"{key}: {msg}" if key else str(msg)


def _line_for(key_lines: dict[str, int], key: str) -> int | None:
    while key:
        if key in key_lines:
            return key_lines[key]
        key = key.rpartition(".")[0]
    return None


def _lifecycle_consistency(parsed: ParsedFile, fm: dict[str, Any], kind: str, record_id: str | None) -> None:
    lines, path = parsed.key_lines, parsed.path
    lifecycle = fm.get("lifecycle")

    def flag(key: str, message: str) -> None:
        parsed.diagnostics.append(
            dg.make(
                "lifecycle-metadata-invalid",
                path,
                message,
                line=lines.get(key, lines.get("lifecycle")),
                record_id=record_id,
            )
        )

    if lifecycle == "superseded" and not fm.get("superseded_by"):
        flag("lifecycle", "a superseded record names its replacement in superseded_by")
    if fm.get("superseded_by") and lifecycle not in ("superseded", "withdrawn"):
        flag("superseded_by", f"superseded_by is set but lifecycle is {lifecycle!r}")
    if lifecycle == "merged":
        if kind != "page":
            flag("lifecycle", "only pages can be merged")
        if not fm.get("merged_into"):
            flag("lifecycle", "a merged page names its survivor in merged_into")
    if fm.get("merged_into") and lifecycle != "merged":
        flag("merged_into", f"merged_into is set but lifecycle is {lifecycle!r}")
    if fm.get("merged_into") and fm.get("merged_into") == fm.get("id"):
        flag("merged_into", "a page cannot be merged into itself")
    if fm.get("superseded_by") and fm.get("superseded_by") == fm.get("id"):
        flag("superseded_by", "a record cannot supersede itself")
    if lifecycle in ("superseded", "withdrawn") and "lifecycle_change" not in fm:
        flag("lifecycle", f"a {lifecycle} record carries lifecycle_change with its reason")


def _check_validity_interval(parsed: ParsedFile, fm: dict[str, Any], record_id: str | None) -> None:
    start, end = fm.get("valid_from"), fm.get("valid_until")
    if not (isinstance(start, str) and isinstance(end, str)):
        return
    try:
        if dates.parse_timestamp(end, utc_only=True) <= dates.parse_timestamp(start, utc_only=True):
            parsed.diagnostics.append(
                dg.make(
                    "date-invalid",
                    parsed.path,
                    "valid_until must be later than valid_from",
                    line=parsed.key_lines.get("valid_until"),
                    record_id=record_id,
                )
            )
    except dates.DateFormatError:
        return  # already reported by the model
