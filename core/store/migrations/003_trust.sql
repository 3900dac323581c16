-- Trust layer (JOURNAL.md §4–5): guard overrides and the imported memory-pulse ledger rows.
-- Both are written only through change sets (journaled, replayable, undoable).

-- `pulse guard allow TERM --path PREFIX --reason R`: a recorded false block.
CREATE TABLE guard_overrides (
    id          INTEGER PRIMARY KEY,
    term        TEXT NOT NULL,
    path_prefix TEXT NOT NULL,
    reason      TEXT NOT NULL,
    journal_seq INTEGER
);

-- memory-pulse ledger rows kept verbatim (raw canonical line), so an export reproduces them
-- byte for byte and appends Pulse's own corrections as new chained rows.
CREATE TABLE ledger_rows (
    pos           INTEGER PRIMARY KEY,
    raw           TEXT NOT NULL,
    kind          TEXT NOT NULL DEFAULT '',
    row_hash      TEXT,
    correction_id INTEGER
);
