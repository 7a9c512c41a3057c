"""Numbers and dates past what SQLite or Python's dates hold are usage errors (exit 2, one
line), not tracebacks (issue 24, item 4); values inside the ranges still reach the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from tests.vaultkit import VaultKit


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person", occurred_at="2026-09-28")
    kit.claim("private/claims/c.md", "cl_1", "Ada likes tea", entities=["pg_ada"])
    return kit.root


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["records", "{v}", "--offset", "99999999999999999999"], "argument --offset"),
        (["show", "{v}", "pg_ada", "--at", "9999-12-31"], "argument --at"),
        (["undo", "{v}", "99999999999999999999999"], "argument JOURNAL_ID"),
        (["undo", "{v}", "0"], "argument JOURNAL_ID"),
        (["grep", "{v}", "ada", "--offset", "-1"], "argument --offset"),
        (["timeline", "{v}", "--limit", "99999999999999999999"], "argument --limit"),
        (["timeline", "{v}", "--since", "0999-01-01"], "argument --since"),
        (["chronicle", "day", "{v}", "1000-01-01", "--week"], "argument date"),
        (["journal", "{v}", "--offset", "99999999999999999999"], "argument --offset"),
        (["history", "{v}", "pg_ada", "--limit", "1001"], "argument --limit"),
        (["chronicle", "day", "{v}", "9999-12-31"], "argument date"),
        (["chronicle", "since", "{v}", "0001-01-01"], "argument date"),
        (["chronicle", "last-seen", "{v}", "pg_ada", "--on-or-before", "0000-00-00"], "--on-or-before"),
        (["diff", "{v}", "pg_ada", "--from", "9999-12-31"], "argument --from"),
        (["changes", "{v}", "--since", "+12026-01-01"], "argument --since"),
    ],
)
def test_out_of_range_numbers_and_dates_are_usage_errors(
    capsys: pytest.CaptureFixture[str], vault: Path, argv: list[str], says: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([a.replace("{v}", str(vault)) for a in argv])
    out, err = capsys.readouterr()
    assert stopped.value.code == 2
    assert out == ""
    assert err.startswith("knowledge: ")
    assert err.count("\n") == 1
    assert says in err


@pytest.mark.parametrize(
    "argv",
    [
        ["records", "{v}", "--offset", "1000000000"],
        ["timeline", "{v}", "--since", "1001-01-01", "--until", "9998-12-31", "--tz", "America/New_York"],
        ["chronicle", "day", "{v}", "9998-12-31", "--week", "--tz", "Pacific/Kiritimati"],
        ["chronicle", "since", "{v}", "1001-01-01"],
        ["chronicle", "day", "{v}", "1001-01-01", "--week", "--tz", "Pacific/Kiritimati"],
        ["changes", "{v}", "--since", "9998-12-31"],
    ],
)
def test_the_ends_of_each_range_are_answered(
    capsys: pytest.CaptureFixture[str], vault: Path, argv: list[str]
) -> None:
    assert main([a.replace("{v}", str(vault)) for a in argv]) == 0
    assert "Traceback" not in "".join(capsys.readouterr())


def test_a_change_ref_past_sqlite_is_no_change(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """`revert --change REF` takes the ref as text (the engine says what it is not)."""
    assert main(["revert", str(vault), "--change", "99999999999999999999999"]) == 2
    assert capsys.readouterr().err.startswith("knowledge: '99999999999999999999999' is not a change")


def test_a_person_reverts_no_change_with_a_number_past_sqlite(vault: Path) -> None:
    """The engine's own check, for the knowledge API (`revert` of a ref as text)."""
    from knowledge_desktop.engine.api.undo import Changer
    from knowledge_desktop.engine.errors import ApiError
    from knowledge_desktop.engine.vault import Vault
    from knowledge_desktop.engine.vault_api import person_changes

    with Vault.open(vault) as opened:
        who: Changer = person_changes(opened)
        for ref in ("99999999999999999999999", "²"):
            with pytest.raises(ApiError, match="is not a change"):
                who.seq_of(ref)
