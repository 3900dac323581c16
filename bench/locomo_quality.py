"""LoCoMo retrieval quality of every scorer: recall@5, recall@10 and MRR, per category and overall.

    nice .venv/bin/python bench/locomo_quality.py --half report     # conversations 5-9 (reported)
    nice .venv/bin/python bench/locomo_quality.py --half report --swap   # 0-4, the reverse check
    nice .venv/bin/python bench/locomo_quality.py --half tune --sweep    # the tuning half + sweep

Tuning uses conversations 0-4 only (the tuning half); figures are reported on 5-9 (the report
half). --swap exchanges the halves, as a check that the choice does not hinge on them.

One Pulse memory per conversation, one event per dialogue turn, built through the real import
path (`Memory.import_corpus` of a pulse-corpus/1 dict: title "Speaker: first ~60 chars",
description "Speaker: text", ts = the session's date, belief_class operational), embedded with
the default model. The .db files are cached under /tmp/pulse-bench-cache/ keyed by
conversation and content, so only the first run pays the embedding (minutes).

Each question of categories 1-4 with evidence is a query, `now` = the conversation's last session
date + 1 day. recall@k = the share of the question's evidence dia_ids among the top k results'
keys; MRR = 1 / rank of the first evidence hit within the top 10 (0 if none). Query embeddings
are computed once per question (a caching wrapper around the real embedder, cached on disk).

--explore measures proposed changes to the lexical channel by monkeypatching
core.scoring.lexical inside this process only (core/ is not edited).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    CACHE,
    LOCOMO,
    CachingEmbedder,
    event_key,
    load_locomo,
    locomo_memory,
    locomo_now,
    scorer_with,
)

TOP_K = 10
MAIN = [("cosine", "cosine", None), ("bm25", "bm25", None), ("v2", "v2", None),
        ("dense", "dense", None), ("pulse", "pulse", None)]
TUNE_HALF, REPORT_HALF = range(0, 5), range(5, 10)


def half_of(conversations: list[dict], half: str, swap: bool = False) -> list[dict]:
    """The tuning half (0-4) or the report half (5-9) of LoCoMo's ten conversations."""
    if half == "all":
        return conversations
    tune, report = (REPORT_HALF, TUNE_HALF) if swap else (TUNE_HALF, REPORT_HALF)
    return [conversations[i] for i in (tune if half == "tune" else report)]
SWEEP_W = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
SWEEP_ALPHA = (0.5, 0.75, 1.0)
CONTEXT_SWEEP = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)
CONTEXT_SWEEP_W = (0.45, 0.6, 0.75)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Bench:
    """Loaded conversations with their memories and query embedders, ready to score."""

    def __init__(self, conversations: list[dict]) -> None:
        self.items = []
        for conv in conversations:
            memory = locomo_memory(conv, log=log)
            embedder = CachingEmbedder(memory.embedder(),
                                       disk=CACHE / f"queries-{conv['sample_id']}.npy")
            t = time.perf_counter()
            for q in conv["questions"]:
                embedder.embed_query(q["question"])
            embedder.save()
            if time.perf_counter() - t > 1:
                log(f"  embedded {len(conv['questions'])} questions of {conv['sample_id']} "
                    f"in {time.perf_counter() - t:.0f} s")
            self.items.append((conv, memory, scorer_with(memory, embedder)))

    def results(self, scorer: str, settings: dict[str, Any] | None = None,
                top_k: int = TOP_K) -> list[tuple[dict, list[dict]]]:
        """(question, retrieve results) for every question, through the real scorer."""
        from core.memory import Memory

        out = []
        for conv, _memory, engine in self.items:
            now = locomo_now(conv)
            for q in conv["questions"]:
                result = engine.retrieve(Memory.request(q["question"], top_k=top_k, scorer=scorer,
                                                        now=now, settings=settings))
                out.append(({**q, "sample_id": conv["sample_id"]}, result["results"]))
        return out

    def evaluate(self, scorer: str, settings: dict[str, Any] | None = None) -> list[dict]:
        """Per question: category, recall@5, recall@10, reciprocal rank."""
        return [score_keys(q, [r["key"] for r in res]) for q, res in self.results(scorer, settings)]

    def close(self) -> None:
        for _, memory, _ in self.items:
            memory.close()


def score_keys(q: dict, keys: list[str]) -> dict:
    wanted = [event_key(q["sample_id"], e) for e in q["evidence"]]
    rr = 0.0
    for rank, key in enumerate(keys[:TOP_K], start=1):
        if key in wanted:
            rr = 1.0 / rank
            break
    return {"category": q["category"], "r5": sum(w in keys[:5] for w in wanted) / len(wanted),
            "r10": sum(w in keys[:10] for w in wanted) / len(wanted), "rr": rr}


# The candidate sets of v2 and hybrid do not depend on the fusion weight or alpha, so a sweep
# retrieves every candidate's breakdown once (N fixed at the default 100 for top_k 10, all of them
# returned) and re-applies the scorer's own formula for each (w, alpha):
#   relevance = w·dense_relevance + (1−w)·bm25_norm        (v2: relevance = dense relevance)
#   score     = relevance · (alpha + (1−alpha)·recency_eff) · emotion · state · anchor · date
# dropping relevance ≤ 0 and ordering by (−score, id), exactly as core/scoring/scorer.py does.
# LoCoMo has no user_flag events, so the anchor factor is 1 for every candidate. main() checks
# that the re-fusion at the default (w, alpha) reproduces the real scorer's ranking.
ALL_CANDIDATES = {"candidates_min": TOP_K * 10, "candidates_per_k": 0}


def refuse(dump: list[tuple[dict, list[dict]]], scorer: str, w: float, alpha: float) -> list[dict]:
    rows = []
    for q, results in dump:
        scored = []
        for r in results:
            t = r["terms"]
            rel = (w * t["dense_relevance"] + (1 - w) * t["bm25_norm"] if scorer == "pulse"
                   else t["relevance"])
            if rel <= 0:
                continue
            score = (rel * (alpha + (1 - alpha) * t["recency_eff"]) * t["emotion"] * t["state"]
                     * t["anchor"] * t["date"])
            scored.append((-score, r["id"], r["key"]))
        scored.sort()
        rows.append(score_keys(q, [k for _, _, k in scored]))
    return rows


def summary(rows: list[dict]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[f"cat{r['category']}"].append(r)
        groups["all"].append(r)
    return {g: {"n": len(v), **{m: float(np.mean([r[m] for r in v])) for m in ("r5", "r10", "rr")}}
            for g, v in groups.items()}


CAT_NAMES = {"cat1": "multi-hop", "cat2": "temporal", "cat3": "open-domain",
             "cat4": "single-hop", "all": "all"}


def print_per_category(results: dict[str, dict]) -> None:
    groups = [g for g in ("cat1", "cat2", "cat3", "cat4", "all") if g in next(iter(results.values()))]
    print("\n| scorer | " + " | ".join(
        f"{CAT_NAMES[g]} ({g[3:] if g != 'all' else '1-4'}) n={next(iter(results.values()))[g]['n']}"
        for g in groups) + " |")
    print("|---|" + "---|" * len(groups))
    print("| cell = recall@5 / recall@10 / MRR |" + " |" * len(groups))
    for label, s in results.items():
        print(f"| {label} | " + " | ".join(
            f"{s[g]['r5']:.3f} / {s[g]['r10']:.3f} / {s[g]['rr']:.3f}" for g in groups) + " |")


def print_overall(title: str, results: dict[str, dict]) -> None:
    print(f"\n{title}\n\n| configuration | recall@5 | recall@10 | MRR |\n|---|---|---|---|")
    for label, s in results.items():
        a = s["all"]
        print(f"| {label} | {a['r5']:.3f} | {a['r10']:.3f} | {a['rr']:.3f} |")


# -- exploration: alternative lexical channels, measured by monkeypatching -------------------------

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves ever kind something things thing like likely might
""".split())


def _fts_no_stopwords(text: str) -> str | None:
    words = [w.lower() for w in re.findall(r"\w+", text, re.UNICODE)]
    words = list(dict.fromkeys(w for w in words if w not in STOPWORDS)) or list(dict.fromkeys(words))
    if not words:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def _bm25_columns(title_weight: float, desc_weight: float):
    """bm25_search with per-column weights (FTS5 bm25(tbl, w_title, w_description))."""
    from core.scoring import lexical

    def search(conn, query, limit, domains=None):
        return lexical.bm25_search(conn, query, limit, domains,
                                   column_weights=(title_weight, desc_weight))

    return search


class patched:
    """Context manager: swap core.scoring.lexical.fts_query and/or the scorer's bm25_search."""

    def __init__(self, fts_query=None, bm25_search=None) -> None:
        self.fts_query, self.bm25_search = fts_query, bm25_search

    def __enter__(self):
        from core.scoring import lexical, scorer

        self.saved = (lexical.fts_query, scorer.bm25_search)
        if self.fts_query is not None:
            lexical.fts_query = self.fts_query
        if self.bm25_search is not None:
            scorer.bm25_search = self.bm25_search
        return self

    def __exit__(self, *exc):
        from core.scoring import lexical, scorer

        lexical.fts_query, scorer.bm25_search = self.saved


def explore(bench: Bench, w_values=(0.3, 0.4, 0.45, 0.5, 0.6)) -> dict[str, dict]:
    variants = {
        "as is": {},
        "stopwords dropped": {"fts_query": _fts_no_stopwords},
        "description only (bm25 weights 0,1)": {"bm25_search": _bm25_columns(0.0, 1.0)},
        "stopwords dropped + description only": {"fts_query": _fts_no_stopwords,
                                                 "bm25_search": _bm25_columns(0.0, 1.0)},
    }
    out: dict[str, dict] = {}
    for name, patch in variants.items():
        with patched(**patch):
            out[f"bm25 — {name}"] = summary(bench.evaluate("bm25"))
            dump = bench.results("pulse", ALL_CANDIDATES, top_k=1000)
        for alpha in (0.5, 1.0):
            for w in w_values:
                label = f"pulse w={w} α={alpha} — {name}"
                out[label] = summary(refuse(dump, "pulse", w, alpha))
                log(f"  {label}: {out[label]['all']['r5']:.3f}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--half", choices=("tune", "report", "all"), default="report",
                        help="conversations 0-4 (tune), 5-9 (report, the default) or all")
    parser.add_argument("--swap", action="store_true", help="exchange the halves (a check)")
    parser.add_argument("--quick", action="store_true",
                        help="2 conversations of the chosen half, the scorers only")
    parser.add_argument("--settings", help="JSON object of scorer-setting overrides for every "
                                           "scorer (e.g. the reverse check's own tuning)")
    parser.add_argument("--sweep", action="store_true",
                        help="the fusion-weight/alpha sweep (only with --half tune)")
    parser.add_argument("--context-sweep", action="store_true",
                        help="real runs over context_weight × fusion weight (only with --half tune)")
    parser.add_argument("--grid", metavar="JSON",
                        help="pulse alone at each settings object of this JSON list (only with "
                             "--half tune): recall@5 / recall@10 / MRR per point")
    parser.add_argument("--explore", action="store_true",
                        help="alternative lexical channels, monkeypatched (only with --half tune)")
    args = parser.parse_args(argv)
    if (args.sweep or args.explore or args.context_sweep or args.grid) and args.half != "tune":
        parser.error("--sweep, --context-sweep, --grid and --explore tune: run them on --half "
                     "tune only")

    conversations = half_of(load_locomo(args.locomo), args.half, args.swap)
    if args.quick:
        conversations = conversations[:2]
    start = time.perf_counter()
    bench = Bench(conversations)
    n_q = sum(len(c["questions"]) for c in conversations)
    n_ev = sum(len(c["turns"]) for c in conversations)
    names = ", ".join(c["sample_id"] for c in conversations)
    print(f"LoCoMo {args.half} half{' (swapped)' if args.swap else ''}: {names}; {n_ev} turns "
          f"(events), {n_q} questions (categories 1-4 with evidence); top_k={TOP_K}; "
          f"now = last session + 1 day")

    if args.grid:
        print("\n| settings | recall@5 | recall@10 | MRR |\n|---|---|---|---|")
        for point in json.loads(args.grid):
            s = summary(bench.evaluate("pulse", point or None))["all"]
            print(f"| `{json.dumps(point)}` | {s['r5']:.3f} | {s['r10']:.3f} | {s['rr']:.3f} |",
                  flush=True)
        bench.close()
        return
    overrides = json.loads(args.settings) if args.settings else None
    if overrides:
        print(f"Settings overridden: {json.dumps(overrides)}")
    main_results = {}
    for label, scorer, settings in MAIN:
        main_results[label] = summary(bench.evaluate(scorer, overrides or settings))
        log(f"  {label}: recall@5 {main_results[label]['all']['r5']:.3f}")
    print("\nDefault settings, per category:")
    print_per_category(main_results)

    if args.sweep:
        from core.scoring.settings import DEFAULT_SETTINGS

        dumps = {name: bench.results(name, ALL_CANDIDATES, top_k=1000) for name in ("v2", "pulse")}
        check = summary(refuse(dumps["pulse"], "pulse", DEFAULT_SETTINGS.hybrid_dense_weight,
                               DEFAULT_SETTINGS.alpha))
        same = all(abs(check["all"][m] - main_results["pulse"]["all"][m]) < 1e-12
                   for m in ("r5", "r10", "rr"))
        print(f"\nRe-fusion check: at the default settings it reproduces the real pulse scorer "
              f"{'exactly' if same else 'NOT exactly — sweep numbers are approximate'}.")
        sweep = {}
        for alpha in SWEEP_ALPHA:
            sweep[f"v2 α={alpha}"] = summary(refuse(dumps["v2"], "v2", 0.0, alpha))
            for w in SWEEP_W:
                sweep[f"pulse w={w} α={alpha}"] = summary(refuse(dumps["pulse"], "pulse", w, alpha))
        print_overall("Sweep on the tuning half (hybrid_dense_weight w, alpha α; α=1.0 disables "
                      "recency), all categories:", sweep)

    if args.context_sweep:
        sweep = {}
        for w in CONTEXT_SWEEP_W:
            for weight in CONTEXT_SWEEP:
                label = f"pulse w={w} context_weight={weight}"
                sweep[label] = summary(bench.evaluate(
                    "pulse", {"hybrid_dense_weight": w, "context_weight": weight}))
                log(f"  {label}: {sweep[label]['all']['r5']:.3f}")
        print_overall("Conversation-context sweep on the tuning half (real scorer runs; the "
                      "other settings at their defaults):", sweep)

    if args.explore:
        print_overall("Lexical-channel alternatives (monkeypatched in this process only):",
                      explore(bench))

    a = {k: v["all"]["r5"] for k, v in main_results.items()}
    best_single = max(a["cosine"], a["bm25"])
    verdict = "PASS" if a["pulse"] >= 0.62 and a["pulse"] >= best_single + 0.05 else "FAIL"
    print(f"\nTarget (pulse recall@5 ≥ 0.62 and ≥ the best single channel + 0.05): {verdict} "
          f"(pulse {a['pulse']:.3f}, cosine {a['cosine']:.3f}, bm25 {a['bm25']:.3f})")
    print(f"[{time.perf_counter() - start:.0f} s]")
    bench.close()


if __name__ == "__main__":
    main()
