"""Building the search text in chunks, in the background, and searching meanwhile
(issue 12: nobody waits for the first search; spec: retrieval-and-dates, index behaviour)."""

from __future__ import annotations

import json
import threading

import pytest

from knowledge_desktop import cli
from knowledge_desktop.engine import vault as vault_module
from knowledge_desktop.engine.errors import Cancelled
from knowledge_desktop.engine.query.grep import GrepQuery
from knowledge_desktop.engine.store.projections import keyword
from tests.vaultkit import VaultKit


@pytest.fixture
def ten(kit: VaultKit) -> VaultKit:
    kit.lantern_notes(10)
    return kit


def queued(kit: VaultKit) -> int:
    vault = kit.scan()
    return keyword.pending(vault.store.reader(), vault.scopes())


def test_text_is_built_in_chunks_with_progress(ten: VaultKit) -> None:
    vault = ten.scan()
    seen: list[tuple[str, int, int]] = []
    assert vault.index_keywords(progress=lambda *step: seen.append(step), chunk=3) is False
    assert [done for _, done, _ in seen] == [3, 6, 9, 10]
    assert {stage for stage, _, _ in seen} == {"text"}
    assert {total for _, _, total in seen} == {10}
    assert vault.grep(GrepQuery("lantern"))["total"] == 10
    assert queued(ten) == 0


def test_a_cancelled_build_keeps_its_chunks_and_resumes(ten: VaultKit) -> None:
    vault = ten.scan()
    cancel = threading.Event()

    def stop_after_first(stage: str, done: int, total: int) -> None:
        cancel.set()

    with pytest.raises(Cancelled):
        vault.index_keywords(progress=stop_after_first, cancel=cancel, chunk=4)
    assert queued(ten) == 6
    vault.index_keywords()
    assert queued(ten) == 0
    assert vault.grep(GrepQuery("lantern"))["total"] == 10


def test_a_file_changed_since_its_scan_ends_the_build_with_lag(ten: VaultKit) -> None:
    vault = ten.scan()
    ten.page("private/notes/n004.md", "pg_4", "Lantern 4", type="note", body="Rewritten after the scan.\n")
    assert vault.index_keywords(chunk=1) is True  # and it returns: the changed file is stepped past
    assert queued(ten) == 1


def test_a_search_during_a_background_build_answers_partially(
    ten: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vault_module, "INLINE_TEXT", 4)
    vault = ten.scan()
    vault.text_in_background = True
    before = vault.grep(GrepQuery("lantern"))
    assert before["index"]["state"] == "partial"
    assert before["index"]["pending"] == 10
    assert before["total"] == 0
    cancel = threading.Event()
    with pytest.raises(Cancelled):
        vault.index_keywords(progress=lambda *_: cancel.set(), cancel=cancel, chunk=6)
    middle = vault.grep(GrepQuery("lantern"))  # 4 left: short enough to index inline
    assert middle["index"]["state"] == "ready"
    assert "pending" not in middle["index"]
    assert middle["total"] == 10


def test_a_search_does_not_wait_long_behind_a_busy_vault(
    ten: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vault_module, "INLINE_WAIT_S", 0.05)
    vault = ten.scan()
    vault.text_in_background = True
    holder_has_it, release = threading.Event(), threading.Event()

    def hold() -> None:
        with vault._lock:
            holder_has_it.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert holder_has_it.wait(10)
        result = vault.grep(GrepQuery("lantern"))
        assert result["index"] == {"state": "partial", "lag": False, "pending": 10}
    finally:
        release.set()
        thread.join()


def test_headless_search_indexes_everything_first(ten: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vault_module, "INLINE_TEXT", 1)
    result = ten.scan().grep(GrepQuery("lantern"))
    assert result["index"]["state"] == "ready"
    assert result["total"] == 10


def test_scan_index_text_leaves_nothing_for_the_first_search(
    ten: VaultKit, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["scan", str(ten.root), "--index-text", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["textIndexMs"] >= 0
    assert queued(ten) == 0
    assert cli.main(["scan", str(ten.root), "--json"]) == 0
    assert "textIndexMs" not in json.loads(capsys.readouterr().out)


def test_headless_the_text_is_one_transaction(ten: VaultKit) -> None:
    vault = ten.scan()
    seen: list[tuple[str, int, int]] = []
    vault.index_keywords(progress=lambda *step: seen.append(step))
    assert seen == [("text", 10, 10)]


def test_a_search_waits_a_moment_for_another_one_indexing_the_same_queue(ten: VaultKit) -> None:
    vault = ten.scan()
    vault.text_in_background = True
    holder_has_it, release = threading.Event(), threading.Event()

    def index_briefly() -> None:  # as a mention search indexing the one changed file would
        with vault._lock:
            holder_has_it.set()
            release.wait(10)
            vault.index_keywords()

    thread = threading.Thread(target=index_briefly)
    thread.start()
    assert holder_has_it.wait(10)
    threading.Timer(0.2, release.set).start()
    result = vault.grep(GrepQuery("lantern"))
    thread.join(10)
    assert result["index"]["state"] == "ready"
    assert result["total"] == 10
