-- Ingestion and extraction (INGEST.md): the pool, merge proposals, the fiction glossary
-- (memory tables, journaled like every other), and LLM job states and usage metrics
-- (bookkeeping: listed in digest.NON_MEMORY_TABLES, written directly, never journaled).

-- A weak segment waiting in the pool: its hypothesis event, the speaker and topic words
-- used for clustering. Promotion sets the event's absorbed_into; the row stays (traceable).
CREATE TABLE pool_segments (
    event_id       INTEGER PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
    observation_id INTEGER REFERENCES observations(id) ON DELETE SET NULL,
    speaker        TEXT NOT NULL DEFAULT '',
    topic          TEXT NOT NULL DEFAULT '[]',
    intensity      REAL NOT NULL DEFAULT 0 CHECK (intensity BETWEEN 0 AND 1)
);

-- Entity resolution: 0.7 <= similarity < 0.98 asks a person (ENGINE/INGEST §2.3).
CREATE TABLE merge_proposals (
    id          INTEGER PRIMARY KEY,
    keep_entity INTEGER NOT NULL,
    merge_entity INTEGER NOT NULL,
    similarity  REAL NOT NULL CHECK (similarity BETWEEN 0 AND 1),
    status      TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'rejected', 'obsolete')),
    reason      TEXT NOT NULL DEFAULT '',
    UNIQUE (keep_entity, merge_entity)
);
CREATE INDEX merge_proposals_status ON merge_proposals(status);

-- Fictional names and patterns: what mentions them gets their domain (fiction_content).
CREATE TABLE glossary (
    id         INTEGER PRIMARY KEY,
    term       TEXT NOT NULL,
    is_pattern INTEGER NOT NULL DEFAULT 0 CHECK (is_pattern IN (0, 1)),
    domain     TEXT NOT NULL DEFAULT 'fiction_content'
        CHECK (domain IN ('real', 'fiction_content', 'fiction_meta', 'meta_authorial')),
    kind       TEXT NOT NULL DEFAULT 'fictional_character',
    note       TEXT NOT NULL DEFAULT '',
    UNIQUE (term, is_pattern)
);

-- LLM extraction jobs (bookkeeping): one per (observation source, content, extractor).
-- state: queued | triaged | extracted | applied | skipped | failed | dead
CREATE TABLE ingest_jobs (
    id           INTEGER PRIMARY KEY,
    job_key      TEXT NOT NULL UNIQUE,
    extractor    TEXT NOT NULL,
    source_kind  TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'queued',
    attempts     INTEGER NOT NULL DEFAULT 0,
    triage       TEXT,
    extraction   TEXT,
    rejected     TEXT NOT NULL DEFAULT '[]',
    last_error   TEXT NOT NULL DEFAULT '',
    observation_id INTEGER,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX ingest_jobs_state ON ingest_jobs(state);

-- One row per model call: tokens and cost, for metrics and the daily budget gate.
CREATE TABLE llm_usage (
    id            INTEGER PRIMARY KEY,
    ts            TEXT NOT NULL,
    day           TEXT NOT NULL,
    alias         TEXT NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    purpose       TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd      REAL NOT NULL DEFAULT 0,
    ok            INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX llm_usage_day ON llm_usage(day);
