"""Opaque refs (differ per extension, resolve back, follow merges, `no entity` when gone), daily
write quotas by local date with an injected clock, single-write limits, and identifier
normalization (issue 16 §1–2; spec: facts-entities-collections-api, Entities and Write rules)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from knowledge_desktop.engine.api.identifiers import (
    IdentifierError,
    kind_for_page_type,
    normalise_identifier,
    page_type_for_kind,
)
from knowledge_desktop.engine.api.quotas import (
    DAILY_CHARS,
    DAILY_CHARS_BULK,
    DAILY_WRITES,
    Quotas,
    check_single_write,
    local_day,
)
from knowledge_desktop.engine.api.refs import BadRef, RefBook, make_ref, ref_kind, resolve, resolve_entity
from knowledge_desktop.engine.errors import ApiError, NoEntity, QuotaExceeded, WriteTooLarge
from knowledge_desktop.engine.store.db import Store

KEY_A = b"a" * 32
KEY_B = b"b" * 32
IDS = [f"pg_{i:04d}" for i in range(50)]


def test_refs_differ_per_extension_and_per_kind_and_resolve_back() -> None:
    a, b = make_ref(KEY_A, "entity", "pg_0007"), make_ref(KEY_B, "entity", "pg_0007")
    assert a != b
    assert a.startswith("ent_")
    assert len(a) == 4 + 26
    assert "pg_0007" not in a
    assert make_ref(KEY_A, "entity", "pg_0007") == a  # stable
    assert make_ref(KEY_A, "document", "pg_0007") != a
    assert make_ref(KEY_A, "document", "pg_0007").startswith("doc_")
    assert resolve(KEY_A, a, IDS) == "pg_0007"
    assert resolve(KEY_B, a, IDS) is None  # another extension's ref means nothing to this one
    assert resolve(KEY_A, a, ["pg_0001"]) is None
    assert ref_kind(make_ref(KEY_A, "change", "7")) == "change"


@pytest.mark.parametrize("bad", ["pg_0007", "ent_short", "zzz_" + "a" * 26, "ent_" + "A" * 26, ""])
def test_malformed_refs_are_bad_refs(bad: str) -> None:
    with pytest.raises(BadRef, match="is not a ref"):
        resolve(KEY_A, bad, IDS)


def test_a_ref_of_another_kind_is_refused() -> None:
    doc = make_ref(KEY_A, "document", "pg_0001")
    with pytest.raises(BadRef, match="document ref, not a entity ref"):
        resolve(KEY_A, doc, IDS, kind="entity")
    with pytest.raises(ValueError, match="unknown ref kind"):
        make_ref(KEY_A, "thing", "x")


def test_entity_refs_follow_merges_and_say_no_entity_when_gone() -> None:
    merged = {"pg_0003": "pg_0009"}
    deleted = {"pg_0004"}

    def survivor(record_id: str) -> str | None:
        if record_id in deleted:
            return None
        return merged.get(record_id, record_id)

    assert resolve_entity(KEY_A, make_ref(KEY_A, "entity", "pg_0003"), IDS, survivor) == "pg_0009"
    assert resolve_entity(KEY_A, make_ref(KEY_A, "entity", "pg_0005"), IDS, survivor) == "pg_0005"
    with pytest.raises(NoEntity, match="no entity"):
        resolve_entity(KEY_A, make_ref(KEY_A, "entity", "pg_0004"), IDS, survivor)
    with pytest.raises(NoEntity, match="no entity"):
        resolve_entity(KEY_A, make_ref(KEY_B, "entity", "pg_0005"), IDS, survivor)


def test_a_ref_book_resolves_the_refs_it_issued_without_candidates(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.sqlite")
    try:
        book = RefBook(store, "recipes", KEY_A)
        refs = book.issue("entity", IDS[:3])
        assert refs == [make_ref(KEY_A, "entity", i) for i in IDS[:3]]
        assert book.lookup(refs[1]) == IDS[1]
        assert book.lookup(refs[1], "entity") == IDS[1]
        with pytest.raises(BadRef, match="not a document ref"):
            book.lookup(refs[1], "document")
        # another extension's book knows nothing of these refs
        assert RefBook(store, "weather", KEY_B).lookup(refs[1]) is None
        # a ref never issued (or a lost table) is found by scanning candidates, then remembered
        late = make_ref(KEY_A, "entity", IDS[40])
        assert book.lookup(late) is None
        assert book.lookup(late, candidates=lambda: IDS) == IDS[40]
        assert book.lookup(late) == IDS[40]
        # a row edited to point elsewhere is not believed
        with store.write() as w:
            w.execute("UPDATE extension_refs_v1 SET record_id='pg_9999' WHERE ref=?", (refs[0],))
        assert book.lookup(refs[0]) is None
        assert book.lookup(refs[0], candidates=lambda: IDS) == IDS[0]
        # entities: through merges, and `no entity` when gone
        assert book.entity(refs[2], survivor=lambda i: "pg_0042") == "pg_0042"
        with pytest.raises(NoEntity, match="no entity"):
            book.entity(refs[2], survivor=lambda i: None)
        book.forget()
        assert book.lookup(refs[1]) is None
    finally:
        store.close()


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "state.sqlite")
    yield s
    s.close()


def test_500_writes_a_day_then_quota_and_a_new_day_starts_afresh(store: Store) -> None:
    clock = Clock(datetime(2026, 9, 29, 10, 0))
    quotas = Quotas(store, clock)
    for _ in range(DAILY_WRITES):
        quotas.charge("recipes", 10)
    assert quotas.usage("recipes").writes == DAILY_WRITES
    with pytest.raises(QuotaExceeded, match="quota"):
        quotas.charge("recipes", 1)
    assert quotas.usage("recipes").writes == DAILY_WRITES  # the refused write counted nothing
    quotas.charge("weather", 1)  # another extension has its own count
    clock.now = datetime(2026, 9, 30, 0, 0, 1)
    assert quotas.charge("recipes", 1).writes == 1
    assert quotas.usage("recipes").chars == 1


def test_character_quota_and_bulk(store: Store) -> None:
    quotas = Quotas(store, Clock(datetime(2026, 9, 29, 10, 0)))
    quotas.charge("importer", DAILY_CHARS - 5)
    with pytest.raises(QuotaExceeded, match="character quota"):
        quotas.charge("importer", 6)
    quotas.charge("importer", 5)
    assert quotas.charge("importer", 100, bulk=True).chars == DAILY_CHARS + 100
    with pytest.raises(QuotaExceeded, match="quota"):
        quotas.charge("importer", DAILY_CHARS_BULK, bulk=True)
    with pytest.raises(ValueError, match="zero or more"):
        quotas.charge("importer", -1)


def test_the_day_is_the_local_date() -> None:
    plus_two = timezone(timedelta(hours=2))
    moment = datetime(2026, 9, 29, 23, 30, tzinfo=UTC)
    assert local_day(moment.astimezone(plus_two).replace(tzinfo=None)) == "2026-09-30"
    assert local_day(datetime(2026, 9, 29, 23, 59)) == "2026-09-29"


def test_quota_counts_survive_a_reopen(tmp_path: Path) -> None:
    clock = Clock(datetime(2026, 9, 29, 10, 0))
    first = Store(tmp_path / "state.sqlite")
    Quotas(first, clock).charge("recipes", 7)
    first.close()
    again = Store(tmp_path / "state.sqlite")
    try:
        assert Quotas(again, clock).usage("recipes").writes == 1
    finally:
        again.close()


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"title": "t" * 1001}, "title has 1,001 characters"),
        ({"name": "n" * 1001}, "name has 1,001"),
        ({"body": "b" * 5_000_001}, "body has 5,000,001"),
        ({"meta": {"k": "v" * 70_000}}, "meta is"),
        ({"value": "v" * 70_000}, "value is"),
        ({"value": {1, 2}}, "value is not JSON"),
    ],
)
def test_single_write_limits(fields: dict[str, object], why: str) -> None:
    with pytest.raises(WriteTooLarge, match=why):
        check_single_write(**fields)  # type: ignore[arg-type]


def test_writes_at_the_limits_pass() -> None:
    check_single_write(
        title="t" * 1000, body="b" * 5_000_000, value="v" * 65_000, meta={"date": "2026-09-29"}
    )


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("email", "  Zhang.San@ACME.nl ", "email:zhang.san@acme.nl"),
        ("phone", "+31 6 1234 5678", "phone:+31612345678"),
        ("phone", "0031 6-1234-5678", "phone:+31612345678"),
        ("phone", "(020) 555 0101", "phone:0205550101"),
        ("domain", "WWW.Acme.NL.", "domain:acme.nl"),
        ("url", "HTTPS://Acme.NL/Team/", "url:https://acme.nl/Team"),
        ("handle", "GitHub:ZhangSan", "github:zhangsan"),
        ("handle", "mastodon:@ada", "mastodon:ada"),
    ],
)
def test_identifiers_normalise(kind: str, value: str, expected: str) -> None:
    assert normalise_identifier(kind, value) == expected


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("email", "nobody"),
        ("phone", "none"),
        ("domain", "a b"),
        ("url", "acme.nl"),
        ("handle", "ada"),
        ("handle", "email:x@y.z"),
        ("fax", "1"),
        ("email", ""),
        ("email", "a@b\nc"),
    ],
)
def test_bad_identifiers(kind: str, value: str) -> None:
    with pytest.raises(IdentifierError):
        normalise_identifier(kind, value)


def test_kinds_map_to_entity_page_types() -> None:
    types = {"person", "company", "researcher"}
    assert page_type_for_kind("person", types) == "person"
    assert page_type_for_kind("org", types) == "company"
    assert page_type_for_kind("researcher", types) == "researcher"
    with pytest.raises(ApiError, match="no entity kind 'place'"):
        page_type_for_kind("place", types)
    assert kind_for_page_type("company") == "org"
    assert kind_for_page_type("researcher") == "researcher"
