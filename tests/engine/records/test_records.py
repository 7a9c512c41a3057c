"""Record format rules (spec: records-and-ontology — Records, Pages, Claims,
Relationships, Optional assertion fields, Lifecycle and merge metadata,
Automatic recall block), checked one file at a time through `parse_bytes`."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.records.parse import ParsedFile, parse_bytes
from tests.vaultkit import envelope, record_text


def parse(fields: dict[str, Any], body: str = "Body text.", path: str = "private/x.md") -> ParsedFile:
    return parse_bytes(path, "private", record_text(fields, body).encode())


def claim(**extra: Any) -> dict[str, Any]:
    fields = envelope(
        "cl_1",
        "claim",
        "A claim",
        claim_kind="fact",
        assertion_origin="source",
        attribution="Ada",
        evidence=[{"url": "https://example.org"}],
    )
    fields.update(extra)
    return {k: v for k, v in fields.items() if v is not None}


def relationship(**extra: Any) -> dict[str, Any]:
    fields = envelope(
        "rl_1",
        "relationship",
        "R",
        **{"from": "pg_a"},
        to="pg_b",
        label="works_at",
        attribution="Ada",
        evidence=[{"source": "pg_src"}],
    )
    fields.update(extra)
    return fields


def codes(parsed: ParsedFile) -> list[str]:
    return [d.code for d in parsed.diagnostics]


# -- envelope -----------------------------------------------------------------------


def test_a_complete_page_envelope_is_a_valid_record() -> None:
    """Envelope: the fields every record carries make a valid record."""
    parsed = parse(envelope("pg_1", "page", "Ada", type="person"))
    assert parsed.status == "record"
    assert parsed.structurally_valid
    assert parsed.diagnostics == []


@pytest.mark.parametrize(
    "missing",
    ["format", "id", "revision", "kind", "title", "recorded_at", "updated_at", "scope", "lifecycle"],
)
def test_an_envelope_without_a_required_field_is_unrecognized(missing: str) -> None:
    """Envelope: each named envelope field is mandatory; without it the file is no record."""
    fields = envelope("pg_1", "page", "Ada")
    del fields[missing]
    parsed = parse(fields)
    if missing == "format":  # frontmatter without the format is a note's (issue 25 §1)
        assert parsed.status == "note"
        assert codes(parsed) == ["plain-note"]
        return
    assert parsed.status == "unrecognized"
    assert "envelope-invalid" in codes(parsed)


@pytest.mark.parametrize("revision", [0, -3, "2", True, 1.5])
def test_revision_must_be_a_positive_integer(revision: object) -> None:
    """Envelope: revision is a positive whole number, not text, bool or fraction."""
    parsed = parse(envelope("pg_1", "page", "Ada", revision=revision))
    assert "envelope-invalid" in codes(parsed)


@pytest.mark.parametrize("bad_id", ["has space", "a/b", ""])
def test_ids_have_no_whitespace_or_slash(bad_id: str) -> None:
    """Ids (ARCHITECTURE): any non-empty string without whitespace or '/'."""
    parsed = parse(envelope(bad_id, "page", "Ada"))
    assert parsed.status == "unrecognized"


def test_ids_are_case_sensitive_opaque_strings() -> None:
    """Ids (ARCHITECTURE): unusual but legal characters are accepted as they are."""
    parsed = parse(envelope("PG_ÄDA:01#x", "page", "Ada"))
    assert parsed.record_id == "PG_ÄDA:01#x"
    assert parsed.structurally_valid


@pytest.mark.parametrize(
    "stamp",
    ["2026-09-28", "2026-09-28T18:30Z", "2026-09-28T18:30:00", "2026-09-28T18:30:00+02:00", "yesterday"],
)
def test_envelope_times_are_utc_timestamps_with_seconds(stamp: str) -> None:
    """Envelope: recorded_at/updated_at are UTC timestamps; dates, no seconds or offsets fail."""
    parsed = parse(envelope("pg_1", "page", "Ada", recorded_at=stamp))
    assert "date-invalid" in codes(parsed)
    assert parsed.status == "unrecognized"


def test_an_unknown_kind_or_lifecycle_is_rejected() -> None:
    """Envelope: kind and lifecycle take only the listed values (no candidate state)."""
    assert "envelope-invalid" in codes(parse(envelope("x", "note", "Ada")))
    assert "envelope-invalid" in codes(parse(envelope("x", "page", "Ada", lifecycle="candidate")))


def test_unknown_frontmatter_keys_are_kept() -> None:
    """Records: keys the format does not know survive the read untouched."""
    parsed = parse(envelope("pg_1", "page", "Ada", x_custom={"nested": [1, 2]}, colour="teal"))
    assert parsed.structurally_valid
    assert parsed.data is not None
    assert parsed.data["x_custom"] == {"nested": [1, 2]}
    assert parsed.data["colour"] == "teal"


def test_yaml_1_2_words_like_yes_and_on_stay_text() -> None:
    """Records are YAML 1.2: yes/no/on/off are strings, dates stay the raw text."""
    text = (
        "---\nformat: knowledge-record-v1\nid: pg_1\nrevision: 1\nkind: page\ntitle: on\n"
        "recorded_at: 2026-09-28T18:30:00Z\nupdated_at: 2026-09-28T18:30:00Z\n"
        "scope: private\nlifecycle: active\naliases: [yes, no, off]\n---\n"
    )
    parsed = parse_bytes("private/x.md", "private", text.encode())
    assert parsed.data is not None
    assert parsed.data["title"] == "on"
    assert parsed.data["aliases"] == ["yes", "no", "off"]
    assert parsed.data["recorded_at"] == "2026-09-28T18:30:00Z"
    assert parsed.structurally_valid


def test_empty_strings_and_nulls_must_be_omitted() -> None:
    """Optional fields: an unknown value is left out, never written as '' or null."""
    parsed = parse(claim(occurred_at="", owner=None, claim_kind="commitment"))
    found = [d for d in parsed.diagnostics if d.code == "empty-value"]
    assert {d.message.split(" ")[0] for d in found} == {"occurred_at"}
    fields = claim(claim_kind="commitment")
    fields["owner"] = None
    parsed = parse(fields)
    assert "empty-value" in codes(parsed)
    assert not parsed.structurally_valid


def test_scope_must_match_the_partition_folder() -> None:
    """Partitions: a record claiming another scope than its folder is diagnosed and invalid."""
    parsed = parse(envelope("pg_1", "page", "Ada", scope="work"))
    assert "scope-mismatch" in codes(parsed)
    assert not parsed.structurally_valid


def test_diagnostic_lines_point_at_the_offending_key() -> None:
    """Diagnostics say where: the file line of the bad key (frontmatter starts on line 2)."""
    parsed = parse(envelope("pg_1", "page", "Ada", revision=-1))
    (diag,) = parsed.diagnostics
    assert diag.line == 4  # '---' is line 1, format 2, id 3, revision 4


# -- claims ---------------------------------------------------------------------------


def test_a_complete_claim_is_valid() -> None:
    """Claims: kind, origin, attribution, evidence and body text make a valid claim."""
    parsed = parse(claim(entities=["pg_a"]))
    assert parsed.structurally_valid, parsed.diagnostics


@pytest.mark.parametrize("field", ["claim_kind", "assertion_origin", "attribution", "evidence"])
def test_claims_need_their_fields(field: str) -> None:
    """Claims: claim_kind, assertion_origin, attribution and evidence are required."""
    fields = claim()
    del fields[field]
    parsed = parse(fields)
    assert parsed.status == "record"
    assert not parsed.structurally_valid
    assert "claim-invalid" in codes(parsed)


def test_claim_kind_and_origin_are_closed_sets() -> None:
    """Claims: claim_kind and assertion_origin take only the listed values."""
    assert "claim-invalid" in codes(parse(claim(claim_kind="rumour")))
    assert "claim-invalid" in codes(parse(claim(assertion_origin="guess")))


def test_claim_evidence_must_not_be_empty() -> None:
    """Claims: evidence is a non-empty list."""
    assert "claim-invalid" in codes(parse(claim(evidence=[])))


def test_each_evidence_item_needs_a_locator() -> None:
    """Evidence (ARCHITECTURE): each item has source, path or url; lines are 1-based ranges."""
    assert "claim-invalid" in codes(parse(claim(evidence=[{"quote": "only a quote"}])))
    assert "claim-invalid" in codes(parse(claim(evidence=[{"path": "a.md", "lines": [5, 2]}])))
    assert "claim-invalid" in codes(parse(claim(evidence=[{"url": "u", "sha256": "abc"}])))
    ok = parse(claim(evidence=[{"path": "a.md", "lines": [2, 5], "sha256": "a" * 64}]))
    assert ok.structurally_valid


def test_a_claim_body_is_its_text_and_must_not_be_blank() -> None:
    """Claims: the claim text is the body; an empty body is invalid."""
    parsed = parse(claim(), body="  \n")
    assert "claim-invalid" in codes(parsed)


@pytest.mark.parametrize(
    "value",
    ["2026-09-28", "2026-09-28T10:00:00Z", "2026-09-28T10:00:00+05:30", "2026-09-28T10:00:00.250-04:00"],
)
def test_occurrence_accepts_real_dates_and_zoned_timestamps(value: str) -> None:
    """Optional fields: occurred_at/due_at are a real date or a timestamp with seconds and zone."""
    assert parse(claim(occurred_at=value)).structurally_valid
    assert parse(claim(claim_kind="commitment", due_at=value)).structurally_valid


@pytest.mark.parametrize(
    "value", ["2026-02-30", "2026-09-28T10:00Z", "2026-09-28T10:00:00", "28/09/2026", "2026-9-28"]
)
def test_occurrence_rejects_inferred_or_fake_dates(value: str) -> None:
    """Optional fields: no midnight or zone is inferred and impossible dates fail."""
    assert "date-invalid" in codes(parse(claim(occurred_at=value)))


@pytest.mark.parametrize("field", ["valid_from", "valid_until", "expires_at"])
def test_validity_and_expiry_are_utc(field: str) -> None:
    """Optional fields: validity and expiry are UTC timestamps only."""
    assert parse(claim(**{field: "2026-09-28T10:00:00Z"})).structurally_valid
    assert "date-invalid" in codes(parse(claim(**{field: "2026-09-28T10:00:00+02:00"})))
    assert "date-invalid" in codes(parse(claim(**{field: "2026-09-28"})))


def test_validity_interval_must_not_end_before_it_starts() -> None:
    """Optional fields: valid_until is an exclusive end after valid_from."""
    parsed = parse(claim(valid_from="2026-09-28T10:00:00Z", valid_until="2026-09-28T10:00:00Z"))
    assert "date-invalid" in codes(parsed)


def test_owner_and_due_belong_to_commitments() -> None:
    """Optional fields: owner and due_at apply to commitment claims only."""
    parsed = parse(claim(owner="pg_a"))
    assert "field-not-applicable" in codes(parsed)
    assert parse(claim(claim_kind="commitment", owner="pg_a")).diagnostics == []


# -- relationships ------------------------------------------------------------------------


def test_a_complete_relationship_is_valid() -> None:
    """Relationships: from, to, label, attribution and evidence."""
    parsed = parse(relationship(), body="")
    assert parsed.structurally_valid, parsed.diagnostics


@pytest.mark.parametrize("field", ["from", "to", "label", "attribution", "evidence"])
def test_relationships_need_their_fields(field: str) -> None:
    """Relationships: every one of the five fields is required."""
    fields = relationship()
    del fields[field]
    parsed = parse(fields)
    assert "relationship-invalid" in codes(parsed)
    assert not parsed.structurally_valid


def test_kind_specific_fields_on_the_wrong_kind_are_flagged() -> None:
    """Records: a claim field on a page is reported, not silently accepted."""
    parsed = parse(envelope("pg_1", "page", "Ada", claim_kind="fact"))
    assert "field-not-applicable" in codes(parsed)


# -- lifecycle and merge metadata -------------------------------------------------------------


CHANGE = {"reason": "corrected", "at": "2026-10-01T09:00:00.000Z", "actor": "agent", "request_id": "req_1"}


def test_superseded_records_name_their_replacement() -> None:
    """Lifecycle: superseded needs superseded_by and a lifecycle_change."""
    parsed = parse(claim(lifecycle="superseded"))
    assert "lifecycle-metadata-invalid" in codes(parsed)
    ok = parse(claim(lifecycle="superseded", superseded_by="cl_2", lifecycle_change=CHANGE))
    assert ok.structurally_valid, ok.diagnostics


def test_superseded_by_on_an_active_record_is_inconsistent() -> None:
    """Lifecycle: the metadata is never accepted as arbitrary decoration."""
    assert "lifecycle-metadata-invalid" in codes(parse(claim(superseded_by="cl_2")))


def test_lifecycle_change_has_reason_and_utc_time() -> None:
    """Lifecycle: lifecycle_change carries a reason and a UTC instant."""
    bad = dict(CHANGE, at="2026-10-01")
    parsed = parse(claim(lifecycle="withdrawn", lifecycle_change=bad))
    assert "date-invalid" in codes(parsed)
    parsed = parse(claim(lifecycle="withdrawn", lifecycle_change={"at": CHANGE["at"]}))
    assert "lifecycle-metadata-invalid" in codes(parsed)


def test_merged_pages_name_their_survivor() -> None:
    """Merge metadata: merged pages carry merged_into; only pages merge."""
    assert "lifecycle-metadata-invalid" in codes(parse(envelope("pg_1", "page", "A", lifecycle="merged")))
    ok = parse(envelope("pg_1", "page", "A", lifecycle="merged", merged_into="pg_2"))
    assert ok.structurally_valid
    bad = parse(claim(lifecycle="merged", merged_into="cl_2"))
    assert "lifecycle-metadata-invalid" in codes(bad)


# -- recall block ------------------------------------------------------------------------------


RECALL = {
    "summary": "Ada prefers tea.",
    "triggers": ["tea", "standing preference"],
    "importance": 8,
    "projects": ["github.com/example/project"],
    "approved_by": "owner-private",
    "approved_at": "2026-09-28T18:30:00.000Z",
}


def test_a_recall_block_within_bounds_is_accepted() -> None:
    """Recall: a well-formed block produces no diagnostic."""
    assert parse(claim(recall=RECALL)).diagnostics == []


@pytest.mark.parametrize(
    "change",
    [
        {"summary": ""},
        {"summary": "x" * 501},
        {"triggers": ["a;b"]},
        {"triggers": ["a|b"]},
        {"triggers": ["two\nlines"]},
        {"triggers": ["t"] * 21},
        {"triggers": ["x" * 101]},
        {"importance": 0},
        {"importance": 11},
        {"projects": ["<script>"]},
        {"projects": ["p"] * 21},
        {"approved_at": "2026-09-28"},
    ],
)
def test_an_out_of_bounds_recall_block_is_diagnosed_but_the_record_stays_valid(
    change: dict[str, Any],
) -> None:
    """Recall: bounds on summary, triggers, importance and projects give invalid-recall only."""
    parsed = parse(claim(recall=dict(RECALL, **change)))
    assert "invalid-recall" in codes(parsed)
    assert parsed.structurally_valid


# -- hostile and malformed files --------------------------------------------------------------


def test_an_unclosed_frontmatter_is_diagnosed_on_line_one() -> None:
    """Records start with a closed --- block; an open one is reported at line 1."""
    parsed = parse_bytes("private/x.md", "private", b"---\nid: x\ntitle: y\n")
    assert codes(parsed) == ["frontmatter-unclosed"]
    assert parsed.diagnostics[0].line == 1


def test_yaml_errors_report_the_file_line() -> None:
    """Bad YAML is diagnosed at the line where the parser failed."""
    parsed = parse_bytes("private/x.md", "private", b"---\nid: x\ntitle: [unclosed\nkind: page\n---\n")
    diag, note = parsed.diagnostics  # without a declared format it is a note (issue 25 §1)
    assert note.code == "plain-note"
    assert diag.code == "yaml-syntax"
    assert diag.line is not None
    assert diag.line >= 3


def test_duplicate_keys_are_rejected() -> None:
    """YAML 1.2 mappings have unique keys; a repeated key is an error with its line."""
    parsed = parse_bytes("private/x.md", "private", b"---\nid: a\ntitle: b\nid: c\n---\n")
    assert parsed.diagnostics[0].code == "yaml-duplicate-key"
    assert parsed.diagnostics[0].line == 4


def test_an_alias_bomb_is_refused_quickly() -> None:
    """Hostile YAML: nested aliases that expand exponentially are refused, not expanded."""
    lines = ["---", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1},"
        f" *a{i - 1}, *a{i - 1}, *a{i - 1}]"
        for i in range(1, 10)
    ]
    lines.append("---")
    parsed = parse_bytes("private/x.md", "private", "\n".join(lines).encode())
    assert codes(parsed) == ["yaml-too-complex", "plain-note"]


def test_python_object_tags_are_not_constructed() -> None:
    """Hostile YAML: language-specific tags never run code; they are a YAML error."""
    parsed = parse_bytes(
        "private/x.md", "private", b"---\nx: !!python/object/apply:os.system ['true']\n---\n"
    )
    assert codes(parsed) == ["yaml-syntax", "plain-note"]


def test_binary_and_non_utf8_files_are_diagnosed_with_a_line() -> None:
    """Bad input: NUL bytes and invalid UTF-8 are named, with the line of the first bad byte."""
    binary = parse_bytes("private/x.md", "private", b"---\nid: a\n\x00\x01")
    assert codes(binary) == ["file-binary"]
    assert binary.diagnostics[0].line == 3
    latin = parse_bytes("private/x.md", "private", "---\ntitle: café\n---\n".encode("latin-1"))
    assert codes(latin) == ["file-not-utf8"]
    assert latin.diagnostics[0].line == 2


def test_markdown_without_frontmatter_is_a_note() -> None:
    """Non-record Markdown in a partition is a plain note (issue 25 §1), one info finding."""
    parsed = parse_bytes("private/x.md", "private", b"# Just notes\n")
    assert parsed.status == "note"
    assert codes(parsed) == ["plain-note"]
    assert parsed.record_id is None


def test_another_record_format_stays_an_unrecognized_record() -> None:
    """A file naming a knowledge-record format other than v1 tries to be a record: it is
    not taken for a note."""
    parsed = parse(envelope("pg_1", "page", "Ada", format="knowledge-record-v2"))
    assert parsed.status == "unrecognized"
    assert codes(parsed) == ["not-a-record"]


def test_a_byte_order_mark_and_crlf_line_ends_are_accepted() -> None:
    """Editors on Windows write a BOM and CRLF; the record still reads."""
    text = record_text(envelope("pg_1", "page", "Ada")).replace("\n", "\r\n")
    parsed = parse_bytes("private/x.md", "private", b"\xef\xbb\xbf" + text.encode())
    assert parsed.structurally_valid, parsed.diagnostics
