"""The embedding model behind `embed(texts)`: shape, unit length, once per process, and
never a download (issue 27 §1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from knowledge_desktop.engine.errors import KnownError
from knowledge_desktop.engine.semantic import model
from knowledge_desktop.engine.semantic.chunks import chunk_lines, chunks_of


def test_embed_gives_unit_float32_rows_of_the_models_dimension() -> None:
    embedder = model.embedder()
    vectors = embedder.embed(["parental leave", "a field-notes app", ""])
    assert embedder.name == model.DEFAULT_MODEL
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, embedder.dim) == (3, 256)
    assert np.allclose(np.linalg.norm(vectors[:2], axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 256)


def test_the_embedder_is_made_once_per_process() -> None:
    assert model.embedder() is model.embedder()


def test_an_unknown_model_setting_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(model.MODEL_SETTING, "no-such-model")
    with pytest.raises(KnownError, match="no-such-model"):
        model.embedder()


def test_loading_takes_no_download_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With the network unreachable and an empty user cache, the model still loads: its
    files come from the installed package (the wheel's `tokenizers/` folder included)."""
    import requests
    from wordllama import WordLlama

    def unreachable(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a download was attempted: {args}")

    monkeypatch.setattr(requests, "get", unreachable)
    monkeypatch.setattr(WordLlama, "DEFAULT_CACHE_DIR", tmp_path / "empty-cache")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fresh = model.WordLlamaEmbedder()
    assert fresh.embed(["offline"]).shape == (1, 256)
    assert not (tmp_path / "empty-cache").exists()


def test_chunks_carry_their_lines() -> None:
    body = "# Title\n\nFirst paragraph\nstill first.\n\n\n- a list\n- of two\n"
    assert chunks_of(body) == ["# Title", "First paragraph\nstill first.", "- a list\n- of two"]
    assert [(first, last) for _, first, last in chunk_lines(body)] == [(0, 0), (2, 3), (6, 7)]


def test_a_huge_passage_is_embedded_by_its_start() -> None:
    """A 620 KB block once held a worker for seconds: only its first MAX_CHARS count."""
    embedder = model.embedder()
    start = "Line 0 of a very long diary. " * 60
    huge = start + "".join(f"Line {n} of a very long diary.\n" for n in range(20_000))
    assert np.allclose(embedder.embed([huge]), embedder.embed([huge[: model.MAX_CHARS]]))
