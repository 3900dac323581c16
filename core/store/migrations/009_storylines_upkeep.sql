-- Storylines and upkeep (docs/upkeep.md): archived events, cached storyline summaries, the
-- proposals `pulse upkeep` makes, and the review queue's decisions. Memory tables, written only
-- through change sets (journaled, replayable, undoable).

-- An archived event stays in the memory (traceable; undo or a restore brings it back) but is no
-- longer ranked, briefed or drawn. The store refuses to archive a row that is not archivable,
-- so a pinned row or an axiom (always archivable 0) can never be archived.
ALTER TABLE events ADD COLUMN archived INTEGER NOT NULL DEFAULT 0
    CHECK (archived IN (0, 1)) CHECK (archived = 0 OR archivable = 1);

-- A storyline's title and 1-3 sentence summary, written when first needed and rewritten when
-- its members change (members_hash covers their ids, dates and texts). key: "chain:ID" (a
-- connected chain, named by its smallest event id) or "pattern:ID" (a distilled pattern and the
-- events absorbed into it). method: "extractive" (offline) or "llm:ALIAS".
CREATE TABLE storylines (
    key          TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('chain', 'pattern')),
    members      TEXT NOT NULL DEFAULT '[]',
    members_hash TEXT NOT NULL,
    title        TEXT NOT NULL,
    summary      TEXT NOT NULL,
    method       TEXT NOT NULL
);

-- What `pulse upkeep` proposes for a person to decide: merging a near-duplicate into the earlier
-- event (event_merge: event_id is absorbed into keep_event), archiving an old low-salience event
-- (archive), dismissing a hypothesis past its TTL (dismiss). Never automatic. reason holds
-- numbers only (no memory text), so erasure has nothing to scrub here.
CREATE TABLE upkeep_proposals (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('event_merge', 'archive', 'dismiss')),
    event_id    INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    keep_event  INTEGER REFERENCES events(id) ON DELETE CASCADE,
    score       REAL NOT NULL DEFAULT 0,
    reason      TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'accepted', 'rejected', 'obsolete')),
    proposed_at TEXT NOT NULL,
    decided_at  TEXT,
    CHECK ((kind = 'event_merge') = (keep_event IS NOT NULL)),
    CHECK (keep_event IS NULL OR keep_event <> event_id)
);
CREATE INDEX upkeep_proposals_status ON upkeep_proposals(status, kind);
CREATE INDEX upkeep_proposals_event ON upkeep_proposals(event_id);

-- Review-queue decisions that have no proposal row of their own: "later" (hidden until a date)
-- for any item, and accepted/rejected knowledge gaps. ref: "KIND:ID" as the queue names items.
CREATE TABLE review_decisions (
    ref      TEXT PRIMARY KEY,
    decision TEXT NOT NULL CHECK (decision IN ('later', 'accepted', 'rejected')),
    until    TEXT,
    decided_at TEXT NOT NULL
);

-- A memory's own settings that change what it does (today: upkeep's, key 'upkeep', a JSON object
-- of the values changed from the defaults). A memory table, so a change is journaled and undoable.
CREATE TABLE memory_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
