"""`Vault.preview`: an operation planned and shown, not published (what the window's
confirmation dialog shows before it asks for a reason)."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import Fence, WriteRejected
from knowledge_desktop.engine.write.requests import make_request
from tests.vaultkit import VaultKit, fence_of, file_state, frontmatter_of


def test_a_preview_returns_the_plan_and_writes_nothing(kit: VaultKit) -> None:
    """The plan holds the new revision of the file; the file, the journal and the guards
    stay as they were (spec: corrections-and-merges, a lifecycle change is published once)."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    fence = fence_of(vault, "cl_tea")
    before = file_state(vault.root)
    request = make_request("withdraw", {"fence": fence, "reason": "wrong"})
    plan = vault.preview(request, lambda ctx: plan_withdraw(ctx, Fence.parse(fence), "wrong"))
    (write,) = plan.writes
    assert frontmatter_of(write.data)["lifecycle"] == "withdrawn"
    assert write.expected_sha256 == fence.rsplit(":", 1)[1]
    assert file_state(vault.root) == before
    assert vault.journal()["items"] == []
    assert vault.show("cl_tea")["lifecycle"] == "active"


def test_a_preview_with_a_stale_fence_is_rejected_like_the_write(kit: VaultKit) -> None:
    """A fence older than the file is refused by the preview with the write's own code."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    fence = fence_of(vault, "cl_tea")
    path = vault.root / "private/claims/tea.md"
    path.write_bytes(path.read_bytes() + b"edited\n")
    request = make_request("withdraw", {"fence": fence, "reason": "wrong"})
    with pytest.raises(WriteRejected) as caught:
        vault.preview(request, lambda ctx: plan_withdraw(ctx, Fence.parse(fence), "wrong"))
    assert caught.value.code == "fence-hash"
