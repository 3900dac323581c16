-- Names an import found only inside fiction passages (core/ingest/fiction.py): proposed for the
-- glossary instead of being made real-life entities. A person accepts one (it becomes a
-- glossary term, in the same journaled step) or rejects it (later imports treat the name as
-- real). Memory table: journaled like every other; evidence rows (row_kind
-- 'glossary_candidate') tie a candidate to the observations that mention it.
CREATE TABLE glossary_candidates (
    id       INTEGER PRIMARY KEY,
    term     TEXT NOT NULL UNIQUE,
    kind     TEXT NOT NULL DEFAULT 'fictional_character',
    domain   TEXT NOT NULL DEFAULT 'fiction_content'
        CHECK (domain IN ('fiction_content', 'fiction_meta', 'meta_authorial')),
    mentions INTEGER NOT NULL DEFAULT 1 CHECK (mentions >= 0),
    status   TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'accepted', 'rejected')),
    note     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX glossary_candidates_status ON glossary_candidates(status);
