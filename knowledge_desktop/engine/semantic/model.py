"""The embedding model: texts in, unit-length float32 vectors out, nothing downloaded.

Everything else sees only `Embedder` (its `name`, `dim` and `embed`), so a better local
model can stand in for the bundled one; the projection stores `name` and `dim` with its
vectors and re-embeds everything when either changes.

The bundled model is wordllama's `l2_supercat` at 256 dimensions: static token
embeddings averaged (no transformer at run time), 16 MB inside the wheel, thousands of
passages a second on one core. wordllama 0.4.0.post1 looks for its tokenizer under
`<package>/tokenizer/` while its wheel ships `<package>/tokenizers/`; passing the package
folder as `cache_dir` makes its second lookup (`<cache_dir>/tokenizers/`) find it, and
`disable_download=True` turns any miss into an error instead of a request to Hugging Face
(no network on users' machines or in CI). The model is loaded on first use, once per
process: a command that never searches by meaning never pays for it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from knowledge_desktop.engine.errors import KnownError

MODEL_SETTING = "KNOWLEDGE_EMBEDDING_MODEL"
"""Environment setting naming the model (`MODELS`); unset means the bundled one."""

DEFAULT_MODEL = "wordllama-l2_supercat-256"

MAX_CHARS = 2000
"""Text embedded per passage. An average of token vectors says no more of a longer passage,
and wordllama's cost grows faster than the text: a 620 KB block took 5 s, its first 4 KB 10 ms."""


class ModelUnavailable(KnownError):
    """The model's files are not where they should be (a broken install or bundle)."""


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """`texts` as an (n, dim) float32 array of unit-length rows (zero rows for empty text)."""
        ...


class WordLlamaEmbedder:
    """wordllama's `l2_supercat` model from the installed package's own files."""

    name = DEFAULT_MODEL
    dim = 256

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    import wordllama  # type: ignore[import-untyped]
                    from wordllama import WordLlama
                except ImportError as exc:
                    raise ModelUnavailable(f"the embedding model is not installed ({exc})") from exc
                folder = Path(wordllama.__file__).resolve().parent
                try:
                    self._model = WordLlama.load(
                        config="l2_supercat", dim=self.dim, cache_dir=folder, disable_download=True
                    )
                except (FileNotFoundError, ValueError) as exc:
                    raise ModelUnavailable(f"the embedding model's files are missing ({exc})") from exc
            return self._model

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vectors = np.asarray(model.embed([t[:MAX_CHARS] for t in texts], norm=False), dtype=np.float32)
        return normalise(vectors)


def normalise(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows scaled to unit length; an all-zero row (no known token) stays zero."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    scaled: NDArray[np.float32] = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return scaled.astype(np.float32)


MODELS = {DEFAULT_MODEL: WordLlamaEmbedder}

_loaded: dict[str, Embedder] = {}
_loaded_lock = threading.Lock()


def embedder() -> Embedder:
    """The process's embedder, made once (its weights load on its first `embed`)."""
    name = os.environ.get(MODEL_SETTING) or DEFAULT_MODEL
    with _loaded_lock:
        if name not in _loaded:
            factory = MODELS.get(name)
            if factory is None:
                raise ModelUnavailable(f"{MODEL_SETTING} names no known model: {name!r}")
            _loaded[name] = factory()
        return _loaded[name]
