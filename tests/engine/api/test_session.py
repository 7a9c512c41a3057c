"""An extension's session (issue 16): its writes go through the publish path as
`extension:<name>` in the session's run, grants are read on every check, and each write is
charged to the daily quota (docs/decisions.md, "The knowledge API mapped onto the vault")."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.errors import ApiError, PermissionRefused, UnknownExtension
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from knowledge_desktop.engine.write.plan import FileWrite, Plan
from tests.engine.api.test_grants import RECIPES
from tests.vaultkit import VaultKit


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    vault = kit.scan()
    Extensions(vault.store, vault.root).install(validate_manifest(RECIPES), "private")
    return vault


def test_a_session_writes_as_the_extension_in_its_run(vault: Vault) -> None:
    session = open_session(vault, "recipes", run_id="run_given")
    text = "---\nid: pg_x\n---\n"
    write = FileWrite("private/notes/x.md", text.encode(), None, "pg_x", 1)

    def planner(ctx: object) -> Plan:
        return Plan("new", "pg_x", None, [write])

    vault.write(session.request("new", {"n": 1}), planner)
    newest = vault.journal(limit=1)["items"][0]
    assert (newest["actor"], newest["runId"]) == ("extension:recipes", "run_given")
    assert open_session(vault, "recipes").run_id.startswith("run_")
    assert open_session(vault, "recipes").run_id != open_session(vault, "recipes").run_id


def test_a_session_reads_grants_on_every_check_and_charges_each_write(vault: Vault) -> None:
    session = open_session(vault, "recipes")
    needed = "facts.read:self:pref.food.rated"
    assert not session.allowed(needed)
    with pytest.raises(PermissionRefused, match="lacks knowledge permission"):
        session.check(needed)
    Extensions(vault.store, vault.root).grant("recipes", "facts.read:self:pref.food.*")
    session.check(needed)
    assert session.charge(10).writes == 1
    assert session.charge(5).chars == 15


def test_a_session_of_an_extension_not_installed_is_refused(vault: Vault) -> None:
    with pytest.raises(UnknownExtension):
        open_session(vault, "nobody")


def test_a_session_opened_in_another_writers_run_writes_nothing(vault: Vault) -> None:
    """However the run id comes in (here as the session's own, as `open_extension(run_id=…)`
    and `knowledge mcp --run` give it), a run another writer holds takes no request (issue
    32 §4); before, the request was made and the run held both writers' changes."""
    mine = open_session(vault, "recipes", run_id="run_shared")
    write = FileWrite("private/notes/x.md", b"---\nid: pg_x\n---\n", None, "pg_x", 1)
    vault.write(mine.request("new", {"n": 1}), lambda ctx: Plan("new", "pg_x", None, [write]))
    data = {**RECIPES, "name": "cooks"}
    Extensions(vault.store, vault.root).install(validate_manifest(data), "private")
    theirs = open_session(vault, "cooks", run_id="run_shared")
    with pytest.raises(ApiError, match="run run_shared belongs to another writer"):
        theirs.request("new", {"n": 2})
    mine.request("new", {"n": 3})  # the run's own writer goes on
    with pytest.raises(ApiError, match="a run id is 1-200 printable characters"):
        open_session(vault, "cooks", run_id="run\nx").request("new", {})
