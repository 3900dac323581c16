"""Retrieval (ENGINE §3, with the changes of docs/scoring.md): every result has a per-term
breakdown whose factors multiply to its score.

Scorers: `pulse` (the default: dense + lexical relevance fused, then recency and the v3
factors), `dense` (the same on the dense relevance alone; was `v3`), and the baselines `v2`,
`cosine` and `bm25`. `v3` and `hybrid` stay as aliases of `dense` and `pulse`.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

import numpy as np

from core.beliefs import BELIEF_CLASSES, DOMAINS
from core.embedding.base import Embedder
from core.errors import PulseError
from core.scoring import gates
from core.scoring.breakdown import Breakdown
from core.scoring.chain import ChainCache, ancestors, chain_story, direct_links, roots_first
from core.scoring.dense import DenseScores
from core.scoring.evidence import Evidence, abstain_reason
from core.scoring.index import DOMAIN_CODES, EventIndex, IndexCache
from core.scoring.lexical import TermCounts, bm25_search, term_coverage
from core.scoring.lexical_hits import LexicalHits
from core.scoring.postings import PostingsCache
from core.scoring.results import envelope, format_iso, results
from core.scoring.settings import DEFAULT_SETTINGS, ScorerSettings
from core.scoring.signature import BodyCache, body_similarity, mood_similarity, state_features
from core.scoring.state import UserState
from core.scoring.state_flags import StateFlagsCache
from core.store.sqlite import sqlite3

SCORERS = ("pulse", "dense", "v2", "cosine", "bm25")
ALIASES = {"v3": "dense", "hybrid": "pulse"}
DEFAULT_SCORER = "pulse"
_WITH_FACTORS = ("pulse", "dense")          # mood, body, anchor and date factors (ENGINE's v3)
_ABSTAINING = ("pulse", "dense", "v2")      # the per-query-normalised scorers

__all__ = ["ALIASES", "DEFAULT_SCORER", "SCORERS", "Request", "Scorer", "format_iso",
           "parse_iso"]


def parse_iso(text: str, what: str = "time") -> datetime:
    """ISO-8601 date or datetime → aware UTC datetime (naive means UTC)."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        raise PulseError(f"{what}: {text!r} is not an ISO-8601 date or time") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


MAX_TOP_K = 1000   # the most results one query may ask for


@dataclass(frozen=True)
class Request:
    query: str
    top_k: int = 10
    scorer: str = DEFAULT_SCORER
    state: UserState = field(default_factory=UserState)
    now: datetime | None = None
    chain: bool = False
    domains: tuple[str, ...] | None = None
    settings: ScorerSettings = DEFAULT_SETTINGS
    abstain: bool = True

    def validated(self) -> Request:
        scorer = ALIASES.get(self.scorer, self.scorer)
        if scorer not in SCORERS:
            names = ", ".join(SCORERS) + "; aliases " + ", ".join(
                f"{a} = {c}" for a, c in ALIASES.items())
            raise PulseError(f"unknown scorer {self.scorer!r} (one of {names})")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) \
                or not 1 <= self.top_k <= MAX_TOP_K:
            raise PulseError(f"top_k must be a whole number in 1..{MAX_TOP_K}, "
                             f"got {self.top_k!r}")
        if not isinstance(self.query, str) or not self.query.strip():
            raise PulseError("the query is empty")
        for domain in self.domains or ():
            if domain not in DOMAINS:
                raise PulseError(f"unknown domain {domain!r} (one of {', '.join(DOMAINS)})")
        return self if scorer == self.scorer else replace(self, scorer=scorer)


@dataclass
class _Context:
    """Everything computed once per query and shared by all candidates."""
    request: Request
    effective_query: str
    hint: str | None
    index: EventIndex
    cos: np.ndarray            # float64 cosine per index row (exact where it can matter)
    allowed: np.ndarray        # bool per index row
    median: float
    c_max: float
    normalised: bool
    now_days: float
    emotion: np.ndarray | None
    body: str | None
    date_ref: float | None
    recent_entities: set[int]
    dense: DenseScores | None = None
    # pulse's state channel, per index row (None: the state carries no body to match)
    body_sim: np.ndarray | None = None
    mood_sim: np.ndarray | None = None
    allowed_rows: np.ndarray | None = None     # np.flatnonzero(allowed), ascending

    def state_relevance(self, rows: np.ndarray) -> np.ndarray:
        if self.body_sim is None or self.mood_sim is None:
            return np.zeros(rows.shape[0])
        return self.body_sim[rows] * self.mood_sim[rows]

    def relevance(self, rows: np.ndarray) -> np.ndarray:
        c = self.cos[rows] if self.dense is None else self.dense.exact(rows)
        if not self.normalised:
            return np.maximum(c, 0.0)
        return np.clip((c - self.median) / (self.c_max - self.median), 0.0, 1.0)

    def allows(self, event_id: int) -> bool:
        pos = self.index.position(event_id)
        return pos is not None and bool(self.allowed[pos])


class Scorer:
    """Scores one memory. Caches the vector index and chain links until the memory changes."""

    def __init__(self, conn: sqlite3.Connection, model: str,
                 embedder: Callable[[], Embedder]) -> None:
        self.conn = conn
        self.model = model
        self._embedder = embedder
        self._indexes = IndexCache()
        self._chains = ChainCache()
        self._term_counts = TermCounts()
        self._postings = PostingsCache()
        self._bodies = BodyCache()
        self._state_flags = StateFlagsCache()
        self._entities: tuple[tuple[int, int], list[tuple[int, list[re.Pattern[str]]]]] | None \
            = None

    # -- public --------------------------------------------------------------------------

    def index(self) -> EventIndex:
        """The vector index of the memory as it is now (cached until it changes)."""
        return self._indexes.get(self.conn, self.model)

    def retrieve(self, request: Request) -> dict[str, Any]:
        request = request.validated()
        now = request.now or datetime.now(timezone.utc)
        if request.scorer == "bm25":
            return self._bm25(request, now)
        ctx = self._context(request, now)
        evidence = self._evidence(ctx)
        reason = abstain_reason(evidence, request.settings) \
            if request.abstain and request.scorer in _ABSTAINING else None
        if reason is not None:
            return self._envelope(ctx, now, evidence, reason) | {"results": []}
        if request.scorer == "cosine":
            return self._cosine(ctx, now, evidence)
        ranked, terms = self._rank(ctx)
        via: dict[int, dict[str, Any]] = {}
        if request.chain:
            ordered, via = self._story(ctx, ranked, terms)
        else:
            ordered = [int(i) for i in ranked[:request.top_k]]
        return self._envelope(ctx, now, evidence, None) | {
            "results": results(self.conn, ordered, terms, via)}

    def explain(self, event_id: int, request: Request) -> dict[str, Any]:
        """The breakdown for one event under this request, whether or not it ranks."""
        request = request.validated()
        now = request.now or datetime.now(timezone.utc)
        if request.scorer in ("cosine", "bm25"):
            raise PulseError("explain works with the pulse, dense and v2 scorers")
        ctx = self._context(request, now)
        pos = ctx.index.position(event_id)
        if pos is None:
            raise PulseError(f"event {event_id} has no vector of model {self.model} (or was "
                             "absorbed into a distilled event); run `pulse embed`")
        ranked, terms = self._rank(ctx, force=np.array([pos]))
        out = self._envelope(ctx, now, self._evidence(ctx), None) | {
            "results": results(self.conn, [event_id], terms)}
        result = out.pop("results")[0]
        # its rank had it been a candidate; a relevance of 0 means the query drops it
        result["rank"] = int(np.flatnonzero(ranked == event_id)[0]) + 1
        result["dropped"] = result["terms"]["relevance"] <= 0
        result["allowed_by_domain"] = bool(ctx.allowed[pos])
        return out | {"result": result}

    def causes(self, event_id: int, depth: int, domains: tuple[str, ...] | None = None
               ) -> list[dict[str, Any]]:
        """What led to an event: its ancestors in event_chains up to `depth` hops, roots first,
        each with its hops and the links to the events it led to. Walks only through events
        in `domains` (all when None)."""
        graph = self._chains.get(self.conn)
        domain_of = dict(self.conn.execute("SELECT id, domain FROM events"))
        allowed = (lambda i: True) if not domains else (lambda i: domain_of.get(i) in domains)
        hops = ancestors(graph, event_id, depth, allowed)
        if not hops:
            return []
        ts_of = dict(self.conn.execute(
            f"SELECT id, ts FROM events WHERE id IN ({','.join('?' * len(hops))})", list(hops)))
        ordered = roots_first(graph, list(hops), lambda i: ts_of[i])
        rows = {r["id"]: r for r in self.conn.execute(
            f"SELECT id, key, title, description, ts, domain, belief_class, user_flag FROM events"
            f" WHERE id IN ({','.join('?' * len(hops))})", list(hops))}
        members = set(hops) | {event_id}
        out = []
        for i in ordered:
            r = rows[i]
            led_to = [{"id": c, "kind": graph.links[(i, c)].kind,
                       "strength": graph.links[(i, c)].strength}
                      for c in sorted(graph.children.get(i, ())) if c in members]
            out.append({"id": i, "key": r["key"], "title": r["title"],
                        "text": r["description"] or r["title"], "ts": r["ts"],
                        "domain": r["domain"], "belief_class": r["belief_class"],
                        "user_flag": bool(r["user_flag"]), "hops": hops[i], "led_to": led_to})
        return out

    # -- context -------------------------------------------------------------------------

    def _context(self, request: Request, now: datetime) -> _Context:
        settings = request.settings
        factors = request.scorer in _WITH_FACTORS
        hint = None
        effective = request.query
        if factors:
            hinted = gates.mood_hint(request.state, settings)
            if hinted is not None:
                hint = hinted[1]
                effective = f"{request.query} {hint}"
        index = self._indexes.get(self.conn, self.model)
        dense = None
        if len(index) == 0:
            cos = np.zeros(0)
        else:
            qvec = np.asarray(self._embedder().embed_query(effective), dtype=np.float32)
            if qvec.shape[0] != index.dim:
                raise PulseError(f"the query vector has {qvec.shape[0]} dimensions but the "
                                 f"memory's {self.model} vectors have {index.dim}")
            dense = DenseScores(index, qvec, _cosines)
            cos = dense.values
        allowed = index.live.copy()   # dead rows (events gone since the load) never rank
        if request.domains:
            codes = np.array([DOMAIN_CODES[d] for d in request.domains], dtype=np.int8)
            allowed &= np.isin(index.domain_code, codes)
        allowed_rows = np.flatnonzero(allowed)
        if dense is not None and dense.approximate:
            _settle(dense, allowed_rows, request.top_k, settings)
        pool = cos if allowed_rows.size == cos.size else cos[allowed_rows]
        c_max = float(pool.max()) if pool.size else 0.0
        median = _median(pool, settings)
        normalised = pool.size >= settings.normalise_min_events and c_max - median >= 1e-6
        gate = gates.emotion_gate_vector(request.state, request.query, settings) if factors else None
        body = gates.body_state(request.state, settings) if factors else None
        body_sim = mood_sim = None
        if request.scorer == "pulse" and settings.state_weight > 0:
            body_sim, mood_sim = self._signature(request, index)
        return _Context(
            body_sim=body_sim, mood_sim=mood_sim,
            request=request, effective_query=effective, hint=hint, index=index, cos=cos,
            allowed=allowed, median=median, c_max=c_max, normalised=normalised,
            now_days=now.timestamp() / 86400.0,
            emotion=gate[0] if gate is not None else None,
            body=body,
            date_ref=gates.date_reference(request.query, request.state, settings) if factors else None,
            recent_entities=self._recent_entities(request.state) if body else set(),
            dense=dense, allowed_rows=allowed_rows,
        )

    def _signature(self, request: Request, index: EventIndex
                   ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(body similarity, mood similarity) of every index row to the request's state, or
        (None, None) when the state carries too little of a body to compare."""
        settings = request.settings
        query = state_features(request.state, settings)
        if query is None:
            return None, None
        table = self._bodies.get(self.conn, index.rev, settings)
        mood = mood_similarity(request.state.mood, index.emotions)
        body = np.zeros(len(index))
        if table.ids.size:
            pos = np.minimum(index.rows_of(table.ids), max(len(index) - 1, 0))
            present = (index.ids[pos] == table.ids) if len(index) else np.zeros(0, dtype=bool)
            body[pos[present]] = table.weight[present] * body_similarity(
                query, table.features[present], settings)
        return body, mood

    def _evidence(self, ctx: _Context) -> Evidence:
        coverage, found, words = term_coverage(self.conn, ctx.request.query, ctx.index.n_live,
                                               self._term_counts, ctx.index.text_rev)
        state_match = None
        if ctx.body_sim is not None:
            allowed = np.flatnonzero(ctx.allowed)
            state_match = float(ctx.state_relevance(allowed).max(initial=0.0))
        return Evidence(max_cosine=ctx.c_max, median_cosine=ctx.median, term_coverage=coverage,
                        words_found=found, words=words, events=int(ctx.allowed.sum()),
                        calibrated=self.model == ctx.request.settings.abstain_model,
                        state_match=state_match)

    # -- ranking -------------------------------------------------------------------------

    def _candidates(self, ctx: _Context) -> tuple[np.ndarray, LexicalHits]:
        """Index rows to score, and any extra per-row terms (pulse's lexical channel)."""
        settings = ctx.request.settings
        n_keep = max(settings.candidates_min, settings.candidates_per_k * ctx.request.top_k)
        rows = ctx.allowed_rows if ctx.allowed_rows is not None else np.flatnonzero(ctx.allowed)
        settled = ctx.dense.top_pool if ctx.dense is not None else None
        dense = _top_rows(ctx.cos, settled[1] if settled and settled[0] == n_keep else rows,
                          ctx.index.ids, n_keep)
        if ctx.request.scorer != "pulse":
            return dense, LexicalHits.none()
        lexical = self._bm25_search(ctx.request.query, n_keep, ctx.request.domains)
        extra = LexicalHits.placed(lexical, ctx.index.ids, ctx.index.live)
        merged = np.union1d(dense, extra.rows)
        if ctx.body_sim is not None and settings.state_candidates > 0:
            # the events lived in the same body and mood join, whatever their words
            state = np.zeros(len(ctx.index))
            state[rows] = ctx.state_relevance(rows)
            matched = rows[state[rows] > 0]
            merged = np.union1d(merged, _top_rows(state, matched, ctx.index.ids,
                                                  settings.state_candidates))
        if settings.context_weight > 0:  # an answer's words are often in the question before it
            prev, nxt = self._neighbours(ctx, merged)
            merged = np.union1d(merged, np.concatenate([prev[prev >= 0], nxt[nxt >= 0]]))
        if settings.chain_context_weight > 0:  # a moment's cause or consequence says what it meant
            linked = self._chain_links(ctx, merged)
            if linked:
                merged = np.union1d(merged, np.fromiter(
                    (r for near in linked.values() for r in near), dtype=np.int64))
        return merged, extra

    def _chain_links(self, ctx: _Context, rows: np.ndarray) -> dict[int, list[int]]:
        return direct_links(self._chains.get(self.conn), ctx.index.ids[rows].tolist(),
                            rows.tolist(), ctx.index.position, ctx.allowed)

    @staticmethod
    def _neighbours(ctx: _Context, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows said just before and after each row within the context window, among the
        allowed rows (-1: none)."""
        index, window = ctx.index, ctx.request.settings.context_window_minutes / 1440.0
        prev, nxt = index.prev_row[rows], index.next_row[rows]
        prev = np.where(index.prev_gap_days[rows] <= window, prev, -1)
        nxt = np.where(index.next_gap_days[rows] <= window, nxt, -1)
        prev = np.where((prev >= 0) & ctx.allowed[np.maximum(prev, 0)], prev, -1)
        nxt = np.where((nxt >= 0) & ctx.allowed[np.maximum(nxt, 0)], nxt, -1)
        return prev, nxt

    def _fused(self, ctx: _Context, rows: np.ndarray, extra: LexicalHits,
               w: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(w·dense relevance + (1−w)·bm25_norm, dense relevance) of rows."""
        dense = ctx.relevance(rows)
        w = ctx.request.settings.hybrid_dense_weight if w is None else w
        lex = extra.norm_of(rows)
        return w * dense + (1.0 - w) * lex, dense

    def _relevance(self, ctx: _Context, rows: np.ndarray, extra: LexicalHits
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(relevance, dense relevance, context relevance, chain context) of rows. pulse fuses
        the lexical channel in, adds context_weight × the fused relevance of the best
        neighbour, chain_context_weight × the best own relevance of a direct chain link and
        state_weight × the state channel (core/scoring/signature.py)."""
        if ctx.request.scorer != "pulse":
            dense = ctx.relevance(rows)
            zeros = np.zeros(rows.shape[0])
            return dense, dense, zeros, zeros
        fused, dense = self._fused(ctx, rows, extra)
        context = np.zeros(rows.shape[0])
        weight = ctx.request.settings.context_weight
        if weight > 0 and rows.size:
            prev, nxt = self._neighbours(ctx, rows)
            for side in (prev, nxt):
                has = side >= 0
                if has.any():
                    near, _ = self._fused(ctx, side[has], extra,
                                          ctx.request.settings.context_dense_weight)
                    context[has] = np.maximum(context[has], near)
        state = ctx.request.settings.state_weight * ctx.state_relevance(rows)
        chain = np.zeros(rows.shape[0])
        if ctx.request.settings.chain_context_weight > 0 and rows.size:
            chain = self._chain_context(ctx, rows, extra)
        return (fused + weight * context + ctx.request.settings.chain_context_weight * chain
                + state, dense, context, chain)

    def _chain_context(self, ctx: _Context, rows: np.ndarray,
                       extra: LexicalHits) -> np.ndarray:
        """Per row: the best own relevance (fused + state channel) of its direct chain
        parents and children (0 for a row without links)."""
        linked = self._chain_links(ctx, rows)
        out = np.zeros(rows.shape[0])
        if not linked:
            return out
        near = np.array(sorted({r for rs in linked.values() for r in rs}), dtype=np.int64)
        fused, _ = self._fused(ctx, near, extra)
        own = dict(zip(near.tolist(), (fused + ctx.request.settings.state_weight
                                       * ctx.state_relevance(near)).tolist()))
        for i, row in enumerate(rows.tolist()):
            if row in linked:
                out[i] = max(own[r] for r in linked[row])
        return out

    def _rank(self, ctx: _Context, force: np.ndarray | None = None
              ) -> tuple[np.ndarray, Breakdown]:
        """Event ids best first, and the breakdown of every scored event by id. Rows in
        `force` are scored even when the query would drop them."""
        request, settings = ctx.request, ctx.request.settings
        rows, extra = self._candidates(ctx)
        relevance, dense_rel, context, chain = self._relevance(ctx, rows, extra)
        keep = relevance > 0
        rows, relevance, dense_rel, context, chain = rows[keep], relevance[keep], \
            dense_rel[keep], context[keep], chain[keep]
        if force is not None:
            missing = np.setdiff1d(force, rows)
            if missing.size:
                forced = self._relevance(ctx, missing, extra)
                rows = np.concatenate([rows, missing])
                relevance = np.concatenate([relevance, forced[0]])
                dense_rel = np.concatenate([dense_rel, forced[1]])
                context = np.concatenate([context, forced[2]])
                chain = np.concatenate([chain, forced[3]])
        index = ctx.index
        ids = index.ids[rows]
        days_ago = np.maximum(0.0, ctx.now_days - index.ts_days[rows])
        decay = np.array([settings.decay_per_day[c] for c in BELIEF_CLASSES], dtype=np.float64)
        lam = decay[index.class_code[rows]]
        flagged = index.user_flag[rows]
        lam = np.where(flagged, np.minimum(lam, settings.anchor_decay_per_day), lam)
        recency = np.exp(-lam * days_ago)
        floor = index.floor[rows]
        recency_eff = np.maximum(recency, floor)
        alpha = settings.alpha
        recency_factor = alpha + (1.0 - alpha) * recency_eff
        base = relevance * recency_factor

        ones = np.ones(rows.shape[0])
        emotion = state = anchor = date = ones
        if request.scorer in _WITH_FACTORS:
            if ctx.emotion is not None:
                emotion = 1.0 + settings.beta_emotion * _emotion_similarity(
                    ctx.emotion, index.emotions[rows])
            if ctx.body is not None:
                state = 1.0 + settings.gamma_state * self._state_fits(ctx, ids)
            if flagged.any():
                order = np.lexsort((ids, -base))[: settings.anchor_top]
                boost = np.zeros(rows.shape[0], dtype=bool)
                boost[order] = flagged[order]
                anchor = np.where(boost, 1.0 + settings.delta_anchor, 1.0)
            if ctx.date_ref is not None:
                date = 1.0 + settings.delta_date * gates.date_proximity(
                    days_ago, ctx.date_ref, settings)
        score = relevance * recency_factor * emotion * state * anchor * date

        columns = {"cosine": ctx.cos[rows], "relevance": relevance, "days_ago": days_ago,
                   "lambda": lam, "recency": recency, "confidence_floor": floor,
                   "recency_eff": recency_eff, "floor_applied": floor > recency,
                   "alpha": alpha, "recency_factor": recency_factor, "emotion": emotion,
                   "state": state, "anchor": anchor, "date": date, "base": base,
                   "median_cosine": ctx.median, "max_cosine": ctx.c_max}
        if request.scorer == "pulse":
            bm25, bm25_norm = extra.bm25_of(rows), extra.norm_of(rows)
            columns.update(dense_relevance=dense_rel, bm25=bm25, bm25_norm=bm25_norm,
                           fusion_dense_weight=settings.hybrid_dense_weight,
                           context_relevance=context, context_weight=settings.context_weight)
            if settings.chain_context_weight > 0:
                columns.update(chain_context=chain,
                               chain_context_weight=settings.chain_context_weight)
            if ctx.body_sim is not None and ctx.mood_sim is not None:
                body, mood = ctx.body_sim[rows], ctx.mood_sim[rows]
                columns.update(body_similarity=body, mood_similarity=mood,
                               state_relevance=body * mood, state_weight=settings.state_weight)
        terms = Breakdown(ids, score, columns)
        order = np.lexsort((ids, -score))
        return ids[order], terms

    def _story(self, ctx: _Context, ranked: np.ndarray, terms: Breakdown
               ) -> tuple[list[int], dict[int, dict[str, Any]]]:
        """Chain mode: the ranked events as a story with its causes (core/scoring/chain.py).
        A cause the ranking did not bring is scored like any event (its breakdown still
        multiplies to its score) and marked via_chain."""
        request, settings = ctx.request, ctx.request.settings
        graph = self._chains.get(self.conn)
        index = ctx.index

        def ts_of(event_id: int) -> float:
            return float(index.ts_days[index.position(event_id)])

        story = chain_story(graph, [int(i) for i in ranked],
                            seeds=max(3 * request.top_k, settings.chain_widen_min),
                            top_k=request.top_k, depth=settings.chain_depth,
                            anchor_top=settings.chain_anchor_top, ts_of=ts_of,
                            allowed=ctx.allows)
        missing = [i for i in story.ordered if i not in terms]
        if missing:
            _, extra_terms = self._rank(ctx, force=index.rows_of(np.array(sorted(missing))))
            for event_id in missing:
                terms[event_id] = extra_terms[event_id]
        via = {}
        for event_id, hops in story.via_chain.items():
            terms[event_id]["terms"]["via_chain"] = True
            via[event_id] = {"anchor": story.anchor, "hops": hops, "relation": "cause"}
        return story.ordered, via

    def _state_fits(self, ctx: _Context, ids: np.ndarray) -> np.ndarray:
        """gates.state_fit of each candidate, from the gate inputs kept in memory
        (core/scoring/state_flags.py); only the entity links are asked of SQL, once."""
        if ids.size == 0:
            return np.zeros(0)
        linked = np.zeros(ids.shape[0], dtype=bool)
        if ctx.recent_entities:
            marks = ",".join("?" * ids.size)
            found = [r[0] for r in self.conn.execute(
                f"SELECT DISTINCT event_id FROM event_entities WHERE event_id IN ({marks})"
                f" AND entity_id IN ({','.join('?' * len(ctx.recent_entities))})",
                ids.tolist() + sorted(ctx.recent_entities))]
            linked = np.isin(ids, np.array(found, dtype=np.int64))
        return self._state_flags.get(self.conn).fits(ids, ctx.body or "", linked,
                                                     ctx.request.settings)

    def _recent_entities(self, state: UserState) -> set[int]:
        """Entities named (whole words, any alias) in the state's recent life events."""
        if not state.recent_life_events_7d:
            return set()
        text = " \n ".join(state.recent_life_events_7d).lower()
        return {entity_id for entity_id, patterns in self._entity_patterns()
                if any(p.search(text) for p in patterns)}

    def _entity_patterns(self) -> list[tuple[int, list[re.Pattern[str]]]]:
        """Each entity's names as compiled whole-word patterns, kept until anything is written
        to the memory (here: total_changes; another process: data_version). Compiling them on
        every query that carried recent life events cost more than searching."""
        key = (self.conn.execute("PRAGMA data_version").fetchone()[0], self.conn.total_changes)
        if self._entities is not None and self._entities[0] == key:
            return self._entities[1]
        found = []
        for entity_id, name, aliases in self.conn.execute(
                "SELECT id, canonical_name, aliases FROM entities ORDER BY id"):
            names = [name]
            try:
                names += [a for a in json.loads(aliases or "[]") if isinstance(a, str)]
            except ValueError:
                pass
            patterns = [re.compile(r"(?<!\w)" + re.escape(n) + r"(?!\w)")
                        for n in (str(n or "").strip().lower() for n in names) if n]
            if patterns:
                found.append((int(entity_id), patterns))
        self._entities = (key, found)
        return found

    # -- baselines -------------------------------------------------------------------------

    def _cosine(self, ctx: _Context, now: datetime, evidence: Evidence) -> dict[str, Any]:
        rows = _top_rows(ctx.cos, np.flatnonzero(ctx.allowed), ctx.index.ids, ctx.request.top_k)
        terms = {int(ctx.index.ids[r]): {"score": float(ctx.cos[r]),
                                         "terms": {"cosine": float(ctx.cos[r])}} for r in rows}
        return self._envelope(ctx, now, evidence, None) | {
            "results": results(self.conn, [int(ctx.index.ids[r]) for r in rows], terms)}

    def _bm25(self, request: Request, now: datetime) -> dict[str, Any]:
        hits = self._bm25_search(request.query, request.top_k, request.domains)
        terms = {i: {"score": s, "terms": {"bm25": s}} for i, s in hits}
        return envelope(request.query, request.query, request.scorer, now) | {
            "results": results(self.conn, [i for i, _ in hits], terms)}

    def _bm25_search(self, query: str, limit: int, domains: tuple[str, ...] | None
                     ) -> list[tuple[int, float]]:
        """FTS5's BM25 ranking, computed over postings beside the index (core/scoring/
        postings.py; the same scores); FTS5 itself for a word that is a phrase of terms."""
        hits = self._postings.get(self.conn).search(self.conn, query, limit, domains)
        return bm25_search(self.conn, query, limit, domains) if hits is None else hits

    def _envelope(self, ctx: _Context, now: datetime, evidence: Evidence,
                  reason: str | None) -> dict[str, Any]:
        return envelope(ctx.request.query, ctx.effective_query, ctx.request.scorer, now,
                        emotion=ctx.emotion is not None, body=ctx.body, date_ref=ctx.date_ref,
                        hint=ctx.hint, evidence=evidence.to_dict(), abstain_reason=reason)


# Large matrices are split across cores: the product is memory-bound and numpy releases the GIL,
# so plain threads reach more bandwidth than the single BLAS thread used for small ones.
_PARALLEL_ROWS = 200_000
_pool: ThreadPoolExecutor | None = None


def _cosines(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    global _pool
    workers = min(4, os.cpu_count() or 1)
    if matrix.shape[0] < _PARALLEL_ROWS or workers < 2:
        return (matrix @ query).astype(np.float64)
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pulse-cosine")
    parts = np.array_split(matrix, workers)
    return np.concatenate(list(_pool.map(lambda part: part @ query, parts))).astype(np.float64)


def _settle(dense: DenseScores, rows: np.ndarray, top_k: int, settings: ScorerSettings) -> None:
    """Exact cosines wherever an approximate one could change the candidates, the maximum or
    the median (the same sample _median takes)."""
    dense.settle_top(rows, max(settings.candidates_min, settings.candidates_per_k * top_k))
    sample = rows
    if rows.size > settings.median_exact_limit:
        sample = rows[_sample_positions(rows.size, settings.median_sample)]
    half = sample.size // 2
    dense.settle_order(sample, [half] if sample.size % 2 else [half - 1, half])


def _emotion_similarity(gate: np.ndarray, emotions: np.ndarray) -> np.ndarray:
    """max(0, cos10(gate, e)) for each row of emotions; 0 for untagged (all-zero) rows."""
    norms = np.linalg.norm(emotions, axis=1) * np.linalg.norm(gate)
    dots = emotions @ gate
    sims = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return np.maximum(sims, 0.0)


def _median(pool: np.ndarray, settings: ScorerSettings) -> float:
    if pool.size == 0:
        return 0.0
    if pool.size <= settings.median_exact_limit:
        return float(np.median(pool))
    # a fixed sample (seeded by the memory's size) keeps large memories fast and reproducible
    return float(np.median(pool[_sample_positions(pool.size, settings.median_sample)]))


@functools.lru_cache(maxsize=8)
def _sample_positions(size: int, k: int) -> np.ndarray:
    """The median's sample of positions in a pool of `size` (drawing it cost ~0.5 ms)."""
    positions = np.random.default_rng(size).choice(size, size=k, replace=False)
    positions.flags.writeable = False
    return positions


def _top_rows(values: np.ndarray, rows: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """The k rows (of `rows`) with the highest values; ties broken by event id, deterministic."""
    if rows.size == 0:
        return rows
    sub = values if rows.size == values.size else values[rows]    # rows: ascending, distinct
    if rows.size > k:
        # take a little more than k so that ties at the cut are resolved by id, not by position
        cut = np.partition(sub, rows.size - k)[rows.size - k]
        chosen = rows[sub >= cut]
    else:
        chosen = rows
    order = np.lexsort((ids[chosen], -values[chosen]))
    return chosen[order][:k]
