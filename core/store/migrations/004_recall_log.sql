-- The recall log (issue 11): what a companion recalled, when, for which question.
-- Bookkeeping of reads, not memory: outside the content digest and the journal (a replay
-- rebuilds what the memory says, not who read it; change sets may not touch these tables).
-- `forget` erases an event from it; records older than the retention setting are purged.

CREATE TABLE recall_log (
    id        INTEGER PRIMARY KEY,
    ts        TEXT NOT NULL,              -- when it was served (UTC, ISO-8601)
    tool      TEXT NOT NULL,              -- recall | brief | get_event (MCP) | retrieve (CLI)
    client    TEXT NOT NULL,              -- the MCP client's name from initialize, or "cli"
    query     TEXT NOT NULL DEFAULT '',   -- the question asked ('' for brief and get_event)
    state     TEXT,                       -- the user state given with it (JSON), if any
    scorer    TEXT,                       -- the scorer that ranked the results, if any
    request   TEXT NOT NULL DEFAULT '{}', -- the other options (JSON: top_k, chain, budget, id…)
    response  TEXT NOT NULL DEFAULT '{}'  -- what was returned, without the memory's text
                                          -- (JSON: ranked keys, scores, breakdowns, gates…)
);
CREATE INDEX recall_log_ts ON recall_log (ts);

-- Which events each record returned, at which rank: "recalled 7 times, last on …".
CREATE TABLE recall_log_events (
    log_id   INTEGER NOT NULL REFERENCES recall_log (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL,
    rank     INTEGER NOT NULL,
    score    REAL,
    PRIMARY KEY (log_id, event_id)
);
CREATE INDEX recall_log_events_event ON recall_log_events (event_id);

-- An event that leaves the memory (undo of an import, erasure) leaves the per-event index too,
-- so a later event given the same id never inherits its recalls.
CREATE TRIGGER recall_log_event_gone AFTER DELETE ON events BEGIN
    DELETE FROM recall_log_events WHERE event_id = OLD.id;
END;
