"""The public face of the engine: open a memory, import, retrieve, explain, edit, curate,
erase, correct, brief, undo, export.

`Memory` is the one public Python API: the CLI, the desktop app and the MCP server are thin
fronts over it and import nothing else from `core` but `core.errors` and the vocabulary modules
(`core.beliefs`, `core.emotion.plutchik`); tests/test_architecture.py checks this. Its methods
live in six modules for size: here (lifecycle, encryption, import, retrieval, belief edits,
integrity), `core.memory_curation` (files in, merges, glossary, entity and event edits, links,
the graph viewer), `core.memory_trust` (erasure, corrections, brief, verdicts, undo, journal
files), `core.memory_live` (the recall log, change marks for live views, atomic edits),
`core.memory_privacy` (policies, boundaries, what a companion receives) and
`core.memory_upkeep` (storylines, upkeep, open questions, knowledge gaps, the review queue).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import PulseError
from core.memory_curation import CurationOps
from core.memory_live import LiveOps
from core.memory_privacy import PrivacyOps
from core.memory_trust import TrustOps
from core.memory_upkeep import UpkeepOps
from core.privacy.mentions import TopicMentions
from core.store import db, journal, records
from core.store.commands import transaction
from core.store.digest import digest as content_digest
from core.store.sqlite import sqlite3
from core.trust.corrections import bearing_on

ProgressFn = Callable[[int, int], None]


def default_db_path() -> Path:
    """`PULSE_DB`, else pulse.db in the platform's user data folder."""
    env = os.environ.get("PULSE_DB")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("pulse", appauthor=False)) / "pulse.db"


def demo_corpus_path() -> Path:
    return Path(__file__).resolve().parent.parent / "resources" / "demo" / "demo_memory.json"


class Memory(CurationOps, TrustOps, LiveOps, PrivacyOps, UpkeepOps):
    """One memory file. Not thread-safe: give each thread its own Memory."""

    def __init__(self, conn: sqlite3.Connection, path: Path, read_only: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.read_only = read_only
        self._scorer = None
        # the events naming each boundary's topic, kept current between queries
        self.topic_mentions = TopicMentions()

    # -- lifecycle ---------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path | None = None, *, create: bool = False,
             read_only: bool = False, passphrase: str | Callable[[], str] | None = None,
             encrypt: bool = False) -> Memory:
        """Open (or with `create`, make) a memory. An encrypted one needs `passphrase`: a string,
        or a callable asked only when the file turns out to be encrypted (a prompt).
        `encrypt=True` makes a new memory encrypted (docs/privacy.md)."""
        path = Path(path) if path is not None else default_db_path()
        conn = db.connect(path, create=create, read_only=read_only, passphrase=passphrase,
                          encrypt=encrypt)
        memory = cls(conn, path, read_only)
        if not read_only and memory.meta("embedding_model") is None:
            from core.embedding.registry import default_model

            with transaction(conn):   # e5, or MiniLM where the e5 weights are nowhere
                memory.set_meta("embedding_model", default_model())
        return memory

    def close(self) -> None:
        """Close the file. A large vector index held in memory is first saved as the memory's
        index snapshot when the one in the file is missing or stale, so the next cold start
        reads it instead of every row (docs/architecture.md, "The index snapshot"); a memory
        another program is writing just skips that."""
        try:
            self.save_index_snapshot(when_stale=True)
        except (sqlite3.Error, PulseError):
            pass
        finally:
            self.conn.close()

    def save_index_snapshot(self, *, when_stale: bool = False) -> dict[str, Any] | None:
        """Write the index snapshot of the active model from the index as it is now (loading
        it first if needed): {"model", "rows", "rev", "bytes"}, or None when nothing was
        written. `when_stale`: only from an index already in memory, only when it is large
        and the file's snapshot did not serve it (missing, unusable) or is more than a few
        thousand events behind."""
        from core.scoring import snapshot

        if self.read_only or (when_stale and self._scorer is None):
            return None
        cache = self.scorer._indexes
        model = self.embedding_model
        if when_stale:        # stale: the snapshot did not serve this process, or it is behind
            held = cache.held(model)
            if held is None or len(held) < snapshot.SNAPSHOT_ROWS or not (
                    model in cache.loaded_in_full
                    or snapshot.is_stale(self.conn, model, len(held))):
                return None
        out = snapshot.write(self.conn, (lambda: cache.cached(self.conn, model)) if when_stale
                             else (lambda: cache.get(self.conn, model)))
        if out is not None:
            cache.loaded_in_full.discard(model)
        return out

    # -- encryption at rest (docs/privacy.md) --------------------------------------------------

    @property
    def encrypted(self) -> bool:
        return bool(getattr(self.conn, "encrypted", False))

    @staticmethod
    def is_encrypted(path: str | Path) -> bool:
        """Whether the memory file at `path` is encrypted (no passphrase needed to tell)."""
        from core.store.cipher import is_encrypted

        path = Path(path)
        return path.exists() and path.stat().st_size > 0 and is_encrypted(path)

    @staticmethod
    def encrypt_file(path: str | Path, passphrase: str | Callable[[], str]) -> dict[str, Any]:
        """Encrypt a plain memory (and its .bak-N backups) in place; it must not be open."""
        from core.store.encryption import encrypt

        return encrypt(path, passphrase)

    @staticmethod
    def decrypt_file(path: str | Path, passphrase: str | Callable[[], str]) -> dict[str, Any]:
        from core.store.encryption import decrypt

        return decrypt(path, passphrase)

    @staticmethod
    def rekey_file(path: str | Path, passphrase: str | Callable[[], str],
                   new_passphrase: str | Callable[[], str]) -> dict[str, Any]:
        """Change an encrypted memory's passphrase (backups too); it must not be open."""
        from core.store.encryption import rekey

        return rekey(path, passphrase, new_passphrase)

    @staticmethod
    def passphrase_prompt(path: str | Path, *, env: str = "PULSE_PASSPHRASE",
                          confirm: bool = False, what: str = "passphrase"
                          ) -> Callable[[], str]:
        """A callable giving $env, else what is typed at the terminal (asked only when called);
        without either, one clear line (PulseError)."""
        from core.passphrase import from_env_or_prompt

        return from_env_or_prompt(path, env=env, confirm=confirm, what=what)

    @staticmethod
    def keyring_passphrase(path: str | Path) -> str | None:
        """The passphrase kept in the OS keyring for this memory (only if the user opted in)."""
        from core.passphrase import keyring_get

        return keyring_get(path)

    @staticmethod
    def keep_passphrase_in_keyring(path: str | Path, passphrase: str | None) -> None:
        """Save (or with None, remove) this memory's passphrase in the OS keyring."""
        from core.passphrase import keyring_delete, keyring_set

        if passphrase is None:
            keyring_delete(path)
        else:
            keyring_set(path, passphrase)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM pulse_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES (?, ?)",
                          (key, value))

    # -- models -----------------------------------------------------------------------------

    @property
    def embedding_model(self) -> str:
        from core.embedding.registry import DEFAULT_MODEL

        return self.meta("embedding_model") or DEFAULT_MODEL

    def embedder(self):
        from core.embedding.registry import get_embedder

        return get_embedder(self.embedding_model)

    def embed_texts(self, texts: list[str], progress: ProgressFn | None = None,
                    step: Callable[[float], None] | None = None) -> list[records.Vector]:
        """`step(fraction of the work done)` is called as the vectors are computed: inside one
        long text where the embedder reports its runs (e5), else after each batch of texts."""
        embedder = self.embedder()
        if not texts:
            matrix = np.zeros((0, 0))
        elif step is not None and getattr(embedder, "reports_steps", False):
            matrix = embedder.embed_passages(texts, progress=progress, step=step)
        elif step is not None:
            def both(done: int, total: int) -> None:
                if progress:
                    progress(done, total)
                step(done / total if total else 1.0)
            matrix = embedder.embed_passages(texts, progress=both)
        else:
            matrix = embedder.embed_passages(texts, progress=progress)
        return [records.Vector(embedder.name, np.asarray(row, dtype=np.float32)) for row in matrix]

    def tag_texts(self, texts: list[str]) -> list[records.Emotions]:
        from core.emotion import default_tagger

        tagger = default_tagger()
        values = tagger.tag_many(texts) if texts else []
        from core.emotion.plutchik import to_mapping

        return [records.Emotions(values={k: v for k, v in to_mapping(row).items() if v > 0},
                                 tagger=tagger.name, tagger_version=tagger.version,
                                 derivation="inferred") for row in values]

    # -- import ------------------------------------------------------------------------------

    def import_corpus(self, source: str | Path | dict[str, Any], *,
                      progress: ProgressFn | None = None, cancel: Any = None) -> dict[str, Any]:
        """Import a pulse-corpus file (or its dict) whole, in one transaction.
        `progress(done, total)` follows the embedding; with `cancel` (a threading.Event) set,
        the import stops at the next batch and writes nothing: the summary then says
        "cancelled": True (as import_files does)."""
        from core.ingest import corpus

        label = "corpus" if isinstance(source, dict) else str(source)
        data = source if isinstance(source, dict) else corpus.load_corpus_file(source)
        plan = corpus.validate(data, label)
        self._writable()
        return corpus.import_plan(self.conn, plan, captured_at=_now_iso(),
                                  embed=self.embed_texts, tag=self.tag_texts,
                                  progress=progress, cancel=cancel)

    # -- retrieval ---------------------------------------------------------------------------

    @property
    def scorer(self):
        from core.scoring.scorer import Scorer

        if self._scorer is None or self._scorer.model != self.embedding_model:
            self._scorer = Scorer(self.conn, self.embedding_model, self.embedder)
        return self._scorer

    def retrieve(self, query: str, *, storylines: bool = False, log: str | None = None,
                 tool: str = "retrieve", **options: Any) -> dict[str, Any]:
        """Ranked events with their breakdown (the `pulse retrieve --json` shape); with
        `storylines`, one entry per storyline instead (`{"storylines": [...]}`, docs/cli.md).

        options: top_k, scorer (pulse | dense | v2 | cosine | bm25; v3 and hybrid are aliases),
        state (UserState or dict), now (datetime or ISO), chain, domains, settings
        (ScorerSettings or dict of overrides), abstain (False: never answer "nothing
        relevant"). With `log` (the client's name: "cli", or the MCP client's) the answer is
        written to the recall log as `tool` (for storylines: each entry's best member, in
        order — no summary text).

        Policies apply (docs/privacy.md): events behind a do_not_probe boundary the query does
        not name are withheld (counted in "withheld"), redacted names show as their label; a
        storyline with a withheld member is shown by its best match instead of its summary."""
        from core.privacy.outside import OutsideView
        from core.scoring.scorer import MAX_TOP_K

        # checked as given, before the withheld are added to top_k
        request = self.request(query, **options).validated()
        view = OutsideView.of(self)
        hidden = view.withheld(query)

        def ranked(request: Any) -> dict[str, Any]:
            # ask for more to fill the places of the withheld, within the scorer's own cap
            asked = replace(request, top_k=min(request.top_k + len(hidden), MAX_TOP_K)) \
                if hidden else request
            return _with_corrections(self.conn, view.results(self.scorer.retrieve(asked), query,
                                                             request.top_k))

        if storylines:
            out = self._retrieve_storylines(request, ranked)
            out["storylines"] = [view.storyline(entry, hidden, query) for entry in out["storylines"]]
            # a summary quotes its members: it may state a withdrawn term too
            found = bearing_on(self.conn, [{"id": i, "title": e.get("title"),
                                            "summary": e.get("summary"),
                                            "members": e.get("members") or []}
                                           for i, e in enumerate(out["storylines"])],
                               ("title", "summary"))
            out["storylines"] = [{**e, "corrections": found[i]} if i in found else e
                                 for i, e in enumerate(out["storylines"])]
        else:
            out = ranked(request)
        if log is not None:
            logged = {k: v for k, v in options.items() if k not in ("state", "settings")}
            served = out
            if storylines:
                logged["storylines"] = True
                served = {k: v for k, v in out.items() if k != "storylines"}
                served["results"] = [entry["best"] for entry in out["storylines"]]
            self.log_recall(tool, log, query=query, state=options.get("state"),
                            request=logged, output=served)
        return out

    def explain(self, event: str | int, query: str, **options: Any) -> dict[str, Any]:
        event_id = records.resolve_event(self.conn, event)
        return self.scorer.explain(event_id, self.request(query, **options))

    def why(self, event: str | int | None = None, *, query: str | None = None,
            depth: int | None = None, **options: Any) -> dict[str, Any]:
        """What led to an event: its causes from the event chains, roots first (each with its
        hops and the links to what it led to). Give the event, or a query whose best match is
        the event (retrieve options apply; a query that abstains answers with no event)."""
        if (event is None) == (query is None):
            raise PulseError("why: give an event or a query (one of them)")
        request = self.request(query or "why", **{**options, "top_k": 1})
        depth = request.settings.chain_depth if depth is None else depth
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 50:
            raise PulseError(f"why: depth must be a whole number in 1..50, got {depth!r}")
        out: dict[str, Any] = {"query": query, "depth": depth, "abstained": False,
                               "abstain_reason": None, "event": None, "causes": []}
        if query is not None:
            found = self.retrieve(query, **{**options, "top_k": 1})   # policies apply
            if found["abstained"] or not found["results"]:
                return out | {"abstained": True, "abstain_reason": found["abstain_reason"]
                              or "nothing relevant: no event matches the query"}
            event_id = found["results"][0]["id"]
        else:
            event_id = records.resolve_event(self.conn, event)
        row = self.event(event_id)
        out["event"] = {k: row[k] for k in ("id", "key", "title", "ts", "domain",
                                           "belief_class", "user_flag")}
        out["event"]["text"] = row["description"] or row["title"]
        out["causes"] = self.scorer.causes(event_id, depth, request.domains)
        out = self._outside_why(out, query or "")
        shown = [out["event"], *out["causes"]]
        found = bearing_on(self.conn, shown, ("title", "text"))
        for item in shown:
            if item["id"] in found:
                item["corrections"] = found[item["id"]]
        return out

    @staticmethod
    def request(query: str, *, top_k: int = 10, scorer: str = "pulse", state: Any = None,
                now: datetime | str | None = None, chain: bool = False,
                domains: Iterable[str] | str | None = None, settings: Any = None,
                abstain: bool = True):
        from core.beliefs import domain_list
        from core.scoring.scorer import Request, parse_iso
        from core.scoring.settings import DEFAULT_SETTINGS, ScorerSettings
        from core.scoring.state import UserState, parse_state

        # decoded JSON (a `--batch` line) reaches here as it is: a wrong type is named
        if not isinstance(query, str):
            raise PulseError(f"query must be a string, got {query!r}")
        for name, flag in (("chain", chain), ("abstain", abstain)):
            if not isinstance(flag, (bool, np.bool_)):
                raise PulseError(f"{name} must be true or false, got {flag!r}")
        if isinstance(now, str):
            now = parse_iso(now, "now")
        elif now is not None and not isinstance(now, datetime):
            raise PulseError(f"now must be an ISO-8601 date or time, got {now!r}")
        if domains is not None:
            if not isinstance(domains, (str, list, tuple, set)):
                raise PulseError(f"domains must be a list of names or 'a,b', got {domains!r}")
            domains = domain_list(domains)
        if not isinstance(state, UserState):
            state = parse_state(state)
        if not isinstance(settings, ScorerSettings):
            settings = DEFAULT_SETTINGS.with_overrides(settings)
        return Request(query=query, top_k=top_k, scorer=scorer, state=state, now=now,
                       chain=bool(chain), domains=tuple(domains) if domains else None,
                       settings=settings, abstain=bool(abstain))

    # -- vocabulary and settings (no memory needed) ----------------------------------------

    @staticmethod
    def parse_state(data: Any) -> Any:
        """A UserState from a dict (or None); unknown keys and bad values are refused."""
        from core.scoring.state import parse_state

        return parse_state(data)

    @staticmethod
    def parse_state_text(text: str, source: str = "state") -> Any:
        """A UserState from JSON text (`--state FILE`)."""
        from core.scoring.state import parse_state_text

        return parse_state_text(text, source)

    @staticmethod
    def parse_time(text: str, what: str = "time") -> datetime:
        """An ISO-8601 time (UTC when no offset is given); PulseError naming `what`."""
        from core.scoring.scorer import parse_iso

        return parse_iso(text, what)

    @staticmethod
    def scorer_defaults() -> Any:
        """The default scorer constants (α, β, γ, δ, λ per class, …) as a ScorerSettings."""
        from core.scoring.settings import DEFAULT_SETTINGS

        return DEFAULT_SETTINGS

    @staticmethod
    def scorer_settings_from_file(path: str | Path) -> Any:
        from core.scoring.settings import ScorerSettings

        return ScorerSettings.from_file(path)

    @staticmethod
    def parse_models(data: Any, source: str = "models.json") -> Any:
        """Validate a models.json object; returns the router (its `.models` by alias)."""
        from core.llm.router import parse_models

        return parse_models(data, source)

    @staticmethod
    def model_fields() -> dict[str, tuple[str, ...]]:
        """The keys models.json knows: {"required", "optional", "top"}."""
        from core.llm.router import OPTIONAL, REQUIRED, TOP_KEYS

        return {"required": REQUIRED, "optional": OPTIONAL, "top": TOP_KEYS}

    @staticmethod
    def model_aliases(path: str | Path | None = None) -> list[str]:
        """The aliases of models.json (path, else $PULSE_MODELS_PATH, else the default)."""
        from core.llm.router import load_router

        return sorted(load_router(path).models)

    @staticmethod
    def models_path() -> Path:
        """Where models.json is read from ($PULSE_MODELS_PATH, else the user config folder)."""
        from core.llm.router import default_models_path

        return default_models_path()

    @staticmethod
    def embedding_models() -> list[str]:
        """Embedding models usable on this machine now (none is loaded to find out)."""
        from core.embedding.registry import available_models

        return available_models()

    @staticmethod
    def embedding_notice(model: str | None = None) -> str | None:
        """One plain sentence when embeddings with `model` (None: what a new memory would get)
        are the MiniLM fallback or cannot be made here (the e5 weights missing or damaged:
        the file and the fix); None when all is well. The app shows it in a banner."""
        from core.embedding.registry import fallback_notice

        return fallback_notice(model)

    @staticmethod
    def check_model(alias: str, *, prompt: str = "respond with ok",
                    path: str | Path | None = None) -> dict[str, Any]:
        """`pulse models check`: one real call through the alias's provider."""
        from core.llm.router import check_alias

        return check_alias(alias, prompt=prompt, path=path)

    # -- edits -------------------------------------------------------------------------------

    # `expect`: the fields as the caller last saw them. When another program has changed any of
    # them since, nothing is written and ConflictError says what changed (an app's undo/redo
    # must not silently overwrite another process's edit).

    def set_belief(self, event: str | int, *, actor: str = "manual",
                   expect: dict[str, Any] | None = None, **fields: Any) -> int | None:
        self._writable()
        return records.set_belief(self.conn, records.resolve_event(self.conn, event),
                                  actor=actor, expect=expect, **fields)

    def set_fact_belief(self, fact_id: int, *, actor: str = "manual",
                        expect: dict[str, Any] | None = None, **fields: Any) -> int | None:
        """Edit a fact's belief fields (class, floor, archivable, domain, provenance)."""
        self._writable()
        if isinstance(fact_id, bool) or not isinstance(fact_id, int):
            raise PulseError(f"a fact id is a whole number, got {fact_id!r}")
        return records.set_fact_belief(self.conn, fact_id, actor=actor, expect=expect, **fields)

    def pin(self, event: str | int, *, actor: str = "manual",
            expect: dict[str, Any] | None = None) -> int | None:
        self._writable()
        return records.pin_core_wound(self.conn, records.resolve_event(self.conn, event),
                                      actor=actor, expect=expect)

    def resolve_event(self, event: str | int) -> int:
        """An event id from a numeric id, an external key (e001) or "event:ID"."""
        return records.resolve_event(self.conn, event)

    def current_event(self, event: str | int) -> int:
        """resolve_event, refusing an event that a new version or a pattern replaced: an edit
        there would pass unnoticed, the replacement being what is recalled."""
        event_id = records.resolve_event(self.conn, event)
        row = self.conn.execute("SELECT absorbed_into FROM events WHERE id = ?",
                                (event_id,)).fetchone()
        if row is not None and row[0] is not None:
            raise PulseError(f"event {event_id} was replaced by event {row[0]} (a new version, "
                             "or the pattern that absorbed it); edit that one")
        return event_id

    def event(self, event: str | int) -> dict[str, Any]:
        event_id = records.resolve_event(self.conn, event)
        row = self.conn.execute("SELECT * FROM events WHERE id = ?", (event_id,)).fetchone()
        return dict(row)

    def filter_items(self, *, kind: str | None = None, domain: str | None = None,
                     belief_class: str | None = None, text: str = "") -> dict[str, Any]:
        """Which entities, events and facts pass one filter (the app's navigator filter, which
        every view follows); see core/filters.py for what each part means."""
        from core.filters import ItemFilter, filter_items

        return filter_items(self.conn, ItemFilter(kind=kind, domain=domain,
                                                  belief_class=belief_class, text=text or ""))

    def event_detail(self, event: str | int) -> dict[str, Any]:
        """One event with its emotions, entities, chain links and sources (no vectors)."""
        from core.store.detail import event_detail

        return event_detail(self.conn, records.resolve_event(self.conn, event))

    def embed(self, model: str | None = None, *, all_events: bool = False,
              progress: ProgressFn | None = None) -> dict[str, Any]:
        """(Re)embed events with `model` (default: the active one) and make it active.
        Without all_events only events missing a current vector are embedded."""
        from core.embedding.registry import get_embedder

        self._writable()
        embedder = get_embedder(model) if model else self.embedder()
        rows = self.conn.execute(
            "SELECT e.id, e.title, e.description, v.text_hash FROM events e"
            " LEFT JOIN event_embeddings v ON v.event_id = e.id AND v.model = ?"
            " ORDER BY e.id", (embedder.name,)).fetchall()
        todo = [r for r in rows if all_events or r["text_hash"] is None
                or r["text_hash"] != records.text_hash(r["title"], r["description"])]
        texts = [records.embedding_text(r["title"], r["description"]) for r in todo]
        matrix = embedder.embed_passages(texts, progress=progress) if texts else []
        with transaction(self.conn):
            for row, vector in zip(todo, matrix):
                records.set_embedding(self.conn, int(row["id"]),
                                      records.Vector(embedder.name, np.asarray(vector)),
                                      actor="system")
            self.set_meta("embedding_model", embedder.name)
        return {"model": embedder.name, "embedded": len(todo), "events": len(rows)}

    # -- integrity ---------------------------------------------------------------------------

    def verify(self) -> list[journal.Break]:
        return journal.verify(self.conn)

    def digest(self) -> str:
        return content_digest(self.conn)

    def stats(self) -> dict[str, Any]:
        tables = ["observations", "entities", "relations", "events", "facts", "event_entities",
                  "evidence", "event_emotions", "event_chains", "event_embeddings",
                  "corrections", "journal"]
        counts = {t: int(self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
                  for t in tables}
        by = lambda col: {r[0]: r[1] for r in self.conn.execute(  # noqa: E731
            f"SELECT {col}, COUNT(*) FROM events GROUP BY {col} ORDER BY {col}")}
        models = {r[0]: r[1] for r in self.conn.execute(
            "SELECT model, COUNT(*) FROM event_embeddings GROUP BY model ORDER BY model")}
        return {"path": str(self.path), "schema_version": db.schema_version(self.conn),
                "counts": counts, "events_by_class": by("belief_class"),
                "events_by_domain": by("domain"), "embedding_models": models,
                "active_model": self.embedding_model,
                "embedding_notice": self.embedding_notice(self.embedding_model),
                "journal_head": journal.head(self.conn)[0]}

    def _writable(self) -> None:
        if self.read_only:
            raise PulseError(f"{self.path}: opened read-only")


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _with_corrections(conn: Any, out: dict[str, Any]) -> dict[str, Any]:
    """Each result a correction bears on carries it (`"corrections"`): a companion that recalls
    "a terrier mix" learns in the same answer that the person withdrew it (JOURNAL §2)."""
    found = bearing_on(conn, out.get("results") or [], ("title", "text"))
    if found:
        out["results"] = [{**r, "corrections": found[r["id"]]} if r["id"] in found else r
                          for r in out["results"]]
    return out
