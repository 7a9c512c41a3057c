"""The double-click bundle (`python packaging/build.py` → dist/knowledge-desktop/) as a user
gets it: it holds the shipped resources, its `knowledge` counts the demo vault as the source
tree does, scans with worker processes, serves MCP, and its window renders the demo vault.

These check a bundle that was built already: `KNOWLEDGE_BUNDLE` names its folder, else
`dist/knowledge-desktop` of this checkout. Without one they skip, unless
`KNOWLEDGE_REQUIRE_BUNDLE=1` (set by .ci/run, which builds the bundle first) makes a
missing bundle a failure. Building from scratch is slow and runs only with
`pip install -e '.[test,package]' && python -m pytest --run-slow -m slow`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from knowledge_desktop.engine.reconcile import PARALLEL_THRESHOLD
from tests.vaultkit import VaultKit

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"
TIMEOUT_S = 180
REBUILD = "(a bundle built from older code? rebuild it: python packaging/build.py)"


def bundle_folder() -> Path:
    named = os.environ.get("KNOWLEDGE_BUNDLE")
    return Path(named) if named else ROOT / "dist" / "knowledge-desktop"


@pytest.fixture(scope="module")
def bundle() -> Path:
    folder = bundle_folder()
    if not (folder / "knowledge-desktop").is_file() or not (folder / "knowledge").is_file():
        reason = f"no built bundle in {folder} (python packaging/build.py, or set KNOWLEDGE_BUNDLE)"
        if os.environ.get("KNOWLEDGE_REQUIRE_BUNDLE") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return folder


def bundled_resources(bundle: Path) -> Path:
    return bundle / "_internal" / "resources"


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """A first start: an empty home and XDG folders (the window then opens the demo vault),
    nothing of this interpreter (PYTHONPATH would not be used by the bundle anyway)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    for variable in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        env[variable] = str(home / variable.lower())
    return {**env, **extra}


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by relative path, leaving out the index a scan writes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and ".knowledge" not in p.relative_to(folder).parts
    }


def copy_vault(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


def scan_json(command: list[str], vault: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [*command, "scan", str(vault), "--json"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_bundle_holds_the_ontology_and_the_demo_vault(bundle: Path) -> None:
    shipped = bundled_resources(bundle)
    for name in ("ontology", "demo-vault"):
        assert files_of(shipped / name) == files_of(RESOURCES / name), f"{name} differs {REBUILD}"
    for executable in ("knowledge-desktop", "knowledge"):
        assert os.access(bundle / executable, os.X_OK)


def test_the_bundle_carries_the_fingerprint_of_the_code_it_was_built_from(bundle: Path) -> None:
    """A frozen app has no engine sources to hash: without the stamp its indexes would be
    versioned by the release number alone, and a newer bundle would trust an older one's."""
    from knowledge_desktop.engine.store import schema

    stamp = bundle / "_internal" / "knowledge_desktop" / "engine" / "store" / schema.STAMPED_FINGERPRINT
    assert stamp.is_file(), f"no code fingerprint in the bundle {REBUILD}"
    assert stamp.read_text("ascii").strip() == schema._code_fingerprint(), REBUILD


def test_the_bundled_command_counts_the_demo_vault_as_the_source_tree_does(
    bundle: Path, tmp_path: Path
) -> None:
    frozen = scan_json(
        [str(bundle / "knowledge")],
        copy_vault(bundled_resources(bundle) / "demo-vault", tmp_path / "frozen"),
        user_env(tmp_path / "home"),
    )
    source = scan_json(
        [sys.executable, "-m", "knowledge_desktop.cli"],
        copy_vault(RESOURCES / "demo-vault", tmp_path / "source"),
        {**user_env(tmp_path / "home"), "PYTHONPATH": str(ROOT)},
    )
    assert frozen["records"] > 0
    counts = ("files", "records", "valid", "invalid", "unrecognized", "eligible", "byKind", "diagnostics")
    assert {k: frozen[k] for k in counts} == {k: source[k] for k in counts}, REBUILD


def test_the_bundled_command_searches_by_meaning_offline_as_the_source_tree_does(
    bundle: Path, tmp_path: Path
) -> None:
    """The model comes from the bundle: an empty home (no model cache) and a proxy nobody
    answers (any download would fail) still give the source tree's answer."""
    offline = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "HF_HUB_OFFLINE": "1"}
    answers = []
    for command, name, extra in (
        ([str(bundle / "knowledge")], "frozen", {}),
        ([sys.executable, "-m", "knowledge_desktop.cli"], "source", {"PYTHONPATH": str(ROOT)}),
    ):
        vault = copy_vault(RESOURCES / "demo-vault", tmp_path / name)
        done = subprocess.run(
            [*command, "search", str(vault), "head programmer", "--mode", "semantic", "--json"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=user_env(tmp_path / f"home-{name}", **offline, **extra),
            check=False,
        )
        assert done.returncode == 0, done.stderr
        answers.append([(r["id"], r["semanticRank"]) for r in json.loads(done.stdout)["results"]])
    assert answers[0], REBUILD
    assert answers[0] == answers[1], REBUILD


def test_the_bundled_command_reads_a_large_vault_in_worker_processes(bundle: Path, tmp_path: Path) -> None:
    """At PARALLEL_THRESHOLD files the scan starts a forkserver: in the bundle that re-runs
    the `knowledge` executable, which must serve as the forkserver (freeze_support) and
    import the engine it preloads (a hidden import) — otherwise the scan fails."""
    kit = VaultKit(tmp_path / "large")
    for n in range(PARALLEL_THRESHOLD):
        kit.page(f"private/notes/n{n:05}.md", f"pg_{n:05}", f"Note {n}", type="note", body=f"Note {n}.\n")
    result = scan_json([str(bundle / "knowledge")], kit.root, user_env(tmp_path / "home"))
    assert (result["records"], result["parsed"], result["invalid"]) == (PARALLEL_THRESHOLD,) * 2 + (0,)


def test_the_bundled_command_answers_an_mcp_client(bundle: Path, tmp_path: Path) -> None:
    """`knowledge mcp` loads the MCP SDK, anyio's asyncio backend and pydantic, none of which
    the rest of the command imports: an agent's MCP config calls exactly this."""
    knowledge = str(bundle / "knowledge")
    vault = copy_vault(RESOURCES / "demo-vault", tmp_path / "vault")
    env = user_env(tmp_path / "home")
    manifest = ROOT / "examples" / "recipe-gem" / "manifest.json"
    install = [knowledge, "extensions", str(vault), "install", str(manifest), "--partition", "private"]
    done = subprocess.run(install, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, check=False)
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = {}

    async def session() -> None:
        server = StdioServerParameters(command=knowledge, args=["mcp", str(vault), "--extension", "recipes"])
        server.env = env
        with open(tmp_path / "server.err", "w") as errlog, anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(server, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                seen["init"] = await client.initialize()
                seen["tools"] = (await client.list_tools()).tools

    anyio.run(session)
    assert "recipes" in (seen["init"].instructions or "")
    assert any(tool.name == "knowledge_grep" for tool in seen["tools"])


def test_the_bundled_window_renders_the_demo_vault(bundle: Path, tmp_path: Path, qapp: Any) -> None:
    from PySide6.QtGui import QImage

    shot = tmp_path / "bundle.png"
    done = subprocess.run(
        [str(bundle / "knowledge-desktop"), "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=user_env(tmp_path / "home", QT_QPA_PLATFORM="offscreen"),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    image = QImage(str(shot))
    assert not image.isNull(), f"{shot} is not an image"
    assert (image.width(), image.height()) > (400, 300)
    step = 7
    colors = {
        image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)
    }
    assert len(colors) > 30, f"the window looks blank: {len(colors)} colours"


def test_the_bundled_window_reports_a_bad_folder_and_exits_non_zero(bundle: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            str(bundle / "knowledge-desktop"),
            str(tmp_path / "missing"),
            "--screenshot",
            str(tmp_path / "x.png"),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=user_env(tmp_path / "home", QT_QPA_PLATFORM="offscreen"),
        check=False,
    )
    assert done.returncode == 2
    assert "no such folder" in done.stderr


@pytest.mark.slow
def test_the_bundle_builds_from_this_checkout(tmp_path: Path, qapp: Any) -> None:
    """Build into a folder of the test's own and check what it made."""
    pytest.importorskip("PyInstaller")
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), "--dist", str(dist)],
        check=True,
        timeout=1800,
    )
    built = dist / "knowledge-desktop"
    assert (built / "knowledge-desktop").is_file()
    assert (built / "knowledge").is_file()
    test_the_bundle_holds_the_ontology_and_the_demo_vault(built)
    test_the_bundled_window_renders_the_demo_vault(built, tmp_path, qapp)
