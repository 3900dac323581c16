-- A snapshot of the in-memory vector index (docs/architecture.md, "The index snapshot"), so a
-- cold start reads a few large blobs instead of stepping every row of the memory through
-- Python: the index's arrays of one embedding model, cut in chunks of at most 16 MB (part: a
-- column name, "codes" for the int8 codes, "head" for the description — the revision of the
-- change log the arrays reflect, shapes, checksums). Bookkeeping, not memory: never journaled,
-- out of the digest; written by core/scoring/snapshot.py, dropped by every erasure and
-- redaction (core/trust/forget.py, core/privacy/apply.py) so no value of an erased event
-- survives in it. Inside the memory file so an encrypted memory keeps it encrypted.
CREATE TABLE index_snapshot (
    model TEXT NOT NULL,
    part  TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    data  BLOB NOT NULL,
    PRIMARY KEY (model, part, seq)
);
