-- Pulse memory schema, version 1 (ENGINE.md §1, JOURNAL.md §1–2).
-- Every write goes through core/store/commands.py, which journals it in the same transaction.

CREATE TABLE pulse_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE observations (
    id           INTEGER PRIMARY KEY,
    source_kind  TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    version      INTEGER NOT NULL DEFAULT 1,
    content_hash TEXT NOT NULL,
    captured_at  TEXT NOT NULL,
    observed_at  TEXT,
    actors       TEXT NOT NULL DEFAULT '[]',
    content_text TEXT NOT NULL DEFAULT '',
    metadata     TEXT NOT NULL DEFAULT '{}',
    redacted     INTEGER NOT NULL DEFAULT 0 CHECK (redacted IN (0, 1)),
    UNIQUE (source_kind, source_id, version)
);

CREATE TABLE entities (
    id               INTEGER PRIMARY KEY,
    key              TEXT UNIQUE,
    canonical_name   TEXT NOT NULL,
    kind             TEXT NOT NULL,
    aliases          TEXT NOT NULL DEFAULT '[]',
    domain           TEXT NOT NULL DEFAULT 'real',
    salience         REAL NOT NULL DEFAULT 0.5 CHECK (salience BETWEEN 0 AND 1),
    emotional_weight REAL NOT NULL DEFAULT 0 CHECK (emotional_weight BETWEEN 0 AND 1),
    first_seen       TEXT,
    last_seen        TEXT,
    is_self          INTEGER NOT NULL DEFAULT 0 CHECK (is_self IN (0, 1)),
    do_not_probe     INTEGER NOT NULL DEFAULT 0 CHECK (do_not_probe IN (0, 1)),
    description      TEXT NOT NULL DEFAULT ''
);

CREATE TABLE relations (
    id          INTEGER PRIMARY KEY,
    from_entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    to_entity   INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    context     TEXT NOT NULL DEFAULT '',
    strength    REAL NOT NULL DEFAULT 0.5 CHECK (strength BETWEEN 0 AND 1),
    first_seen  TEXT,
    last_seen   TEXT,
    UNIQUE (from_entity, to_entity, kind)
);

CREATE TABLE events (
    id                 INTEGER PRIMARY KEY,
    key                TEXT UNIQUE,
    title              TEXT NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    ts                 TEXT NOT NULL,
    sentiment          REAL NOT NULL DEFAULT 0 CHECK (sentiment BETWEEN -1 AND 1),
    sentiment_label    TEXT NOT NULL DEFAULT '',
    emotional_weight   REAL NOT NULL DEFAULT 0 CHECK (emotional_weight BETWEEN 0 AND 1),
    intensity          REAL NOT NULL DEFAULT 0.5 CHECK (intensity BETWEEN 0 AND 1),
    belief_class       TEXT NOT NULL DEFAULT 'operational'
        CHECK (belief_class IN ('axiom', 'self_model', 'user_model', 'operational', 'hypothesis')),
    confidence_floor   REAL NOT NULL DEFAULT 0 CHECK (confidence_floor BETWEEN 0 AND 1),
    archivable         INTEGER NOT NULL DEFAULT 1 CHECK (archivable IN (0, 1)),
    provenance         TEXT NOT NULL DEFAULT 'interactive_memory'
        CHECK (provenance IN ('memory_pattern', 'interactive_memory', 'idle_background',
                              'sleep_reflection', 'manual')),
    domain             TEXT NOT NULL DEFAULT 'real'
        CHECK (domain IN ('real', 'fiction_content', 'fiction_meta', 'meta_authorial')),
    user_flag          INTEGER NOT NULL DEFAULT 0 CHECK (user_flag IN (0, 1)),
    biometrics         TEXT NOT NULL DEFAULT '{}',
    source_observation INTEGER REFERENCES observations(id) ON DELETE SET NULL,
    absorbed_into      INTEGER REFERENCES events(id) ON DELETE SET NULL,
    -- The belief invariant lives in the store, not only in the UI (ENGINE §2).
    CHECK (belief_class <> 'axiom' OR (archivable = 0 AND confidence_floor >= 0.5))
);
CREATE INDEX events_ts ON events(ts);

CREATE TABLE facts (
    id               INTEGER PRIMARY KEY,
    entity_id        INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    text             TEXT NOT NULL,
    confidence       REAL NOT NULL DEFAULT 0.7 CHECK (confidence BETWEEN 0 AND 1),
    belief_class     TEXT NOT NULL DEFAULT 'operational'
        CHECK (belief_class IN ('axiom', 'self_model', 'user_model', 'operational', 'hypothesis')),
    confidence_floor REAL NOT NULL DEFAULT 0 CHECK (confidence_floor BETWEEN 0 AND 1),
    archivable       INTEGER NOT NULL DEFAULT 1 CHECK (archivable IN (0, 1)),
    provenance       TEXT NOT NULL DEFAULT 'interactive_memory',
    domain           TEXT NOT NULL DEFAULT 'real'
        CHECK (domain IN ('real', 'fiction_content', 'fiction_meta', 'meta_authorial')),
    verified         INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),
    UNIQUE (entity_id, text),
    CHECK (belief_class <> 'axiom' OR (archivable = 0 AND confidence_floor >= 0.5))
);

CREATE TABLE event_entities (
    event_id  INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    role      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (event_id, entity_id)
);
CREATE INDEX event_entities_entity ON event_entities(entity_id);

-- Which observation supports which row (row_kind: event | fact | entity | relation).
CREATE TABLE evidence (
    observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    row_kind       TEXT NOT NULL,
    row_id         INTEGER NOT NULL,
    PRIMARY KEY (observation_id, row_kind, row_id)
);
CREATE INDEX evidence_row ON evidence(row_kind, row_id);

CREATE TABLE event_emotions (
    event_id       INTEGER PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
    joy REAL NOT NULL DEFAULT 0, sadness REAL NOT NULL DEFAULT 0, anger REAL NOT NULL DEFAULT 0,
    fear REAL NOT NULL DEFAULT 0, trust REAL NOT NULL DEFAULT 0, disgust REAL NOT NULL DEFAULT 0,
    anticipation REAL NOT NULL DEFAULT 0, surprise REAL NOT NULL DEFAULT 0,
    shame REAL NOT NULL DEFAULT 0, guilt REAL NOT NULL DEFAULT 0,
    tagger         TEXT NOT NULL,
    tagger_version TEXT NOT NULL DEFAULT '',
    derivation     TEXT NOT NULL CHECK (derivation IN ('explicit', 'inferred', 'user_confirmed')),
    confidence     REAL NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 1),
    CHECK (joy BETWEEN 0 AND 1 AND sadness BETWEEN 0 AND 1 AND anger BETWEEN 0 AND 1
       AND fear BETWEEN 0 AND 1 AND trust BETWEEN 0 AND 1 AND disgust BETWEEN 0 AND 1
       AND anticipation BETWEEN 0 AND 1 AND surprise BETWEEN 0 AND 1
       AND shame BETWEEN 0 AND 1 AND guilt BETWEEN 0 AND 1)
);

CREATE TABLE event_chains (
    parent_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    child_id  INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('causal', 'temporal', 'thematic')),
    strength  REAL NOT NULL DEFAULT 0.5 CHECK (strength BETWEEN 0 AND 1),
    PRIMARY KEY (parent_id, child_id),
    CHECK (parent_id <> child_id)
);
CREATE INDEX event_chains_child ON event_chains(child_id);

CREATE TABLE event_embeddings (
    event_id  INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    model     TEXT NOT NULL,
    dim       INTEGER NOT NULL,
    vector    BLOB NOT NULL,
    text_hash TEXT NOT NULL,
    PRIMARY KEY (event_id, model),
    CHECK (length(vector) = 4 * dim)
);
CREATE INDEX event_embeddings_model ON event_embeddings(model);

-- Corrections (JOURNAL §2): withdrawn/replacement terms are JSON arrays of strings.
CREATE TABLE corrections (
    id           INTEGER PRIMARY KEY,
    created_at   TEXT NOT NULL,
    note         TEXT NOT NULL DEFAULT '',
    withdrawn    TEXT NOT NULL DEFAULT '[]',
    replacement  TEXT NOT NULL DEFAULT '[]',
    subject      TEXT,
    supersedes   TEXT NOT NULL DEFAULT '[]',
    journal_seq  INTEGER
);

-- The hash-chained journal (JOURNAL §1). `payload` may be replaced by a redaction marker on
-- erasure; the chain covers payload_sha256, so it still verifies.
CREATE TABLE journal (
    seq            INTEGER PRIMARY KEY,
    ts             TEXT NOT NULL,
    actor          TEXT NOT NULL,
    op             TEXT NOT NULL,
    subject        TEXT NOT NULL DEFAULT '',
    payload        TEXT NOT NULL,
    payload_sha256 TEXT NOT NULL,
    prev           TEXT,
    hash           TEXT NOT NULL
);

-- Bumped on every change to vectors or scoring metadata, so other processes (the app while the
-- CLI writes) know their cached index is stale.
INSERT INTO pulse_meta (key, value) VALUES ('index_rev', '0');
CREATE TRIGGER emb_rev_ins AFTER INSERT ON event_embeddings BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER emb_rev_del AFTER DELETE ON event_embeddings BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER emb_rev_upd AFTER UPDATE ON event_embeddings BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER ev_rev_upd AFTER UPDATE ON events BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER ev_rev_del AFTER DELETE ON events BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER emo_rev_any AFTER INSERT ON event_emotions BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER emo_rev_upd AFTER UPDATE ON event_emotions BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER chain_rev_ins AFTER INSERT ON event_chains BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;
CREATE TRIGGER chain_rev_del AFTER DELETE ON event_chains BEGIN
    UPDATE pulse_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'index_rev'; END;

-- Full-text index over events (title + description) and facts, kept in sync by triggers.
CREATE VIRTUAL TABLE events_fts USING fts5(
    title, description, content='events', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER events_fts_ins AFTER INSERT ON events BEGIN
    INSERT INTO events_fts(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
CREATE TRIGGER events_fts_del AFTER DELETE ON events BEGIN
    INSERT INTO events_fts(events_fts, rowid, title, description)
        VALUES ('delete', old.id, old.title, old.description);
END;
CREATE TRIGGER events_fts_upd AFTER UPDATE OF title, description ON events BEGIN
    INSERT INTO events_fts(events_fts, rowid, title, description)
        VALUES ('delete', old.id, old.title, old.description);
    INSERT INTO events_fts(rowid, title, description) VALUES (new.id, new.title, new.description);
END;

CREATE VIRTUAL TABLE facts_fts USING fts5(
    text, content='facts', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER facts_fts_ins AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER facts_fts_del AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER facts_fts_upd AFTER UPDATE OF text ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
END;
