-- Sensitivity policies (issue 13, docs/privacy.md): how Pulse keeps what it learns about each
-- person. full: as said; summary_only: what happened, never their words; redact: their names
-- are replaced by role_label ("[ex-partner]") in what is stored and shown outside the owner's
-- view; no_capture: nothing new about them is stored (the row stays so the importer knows them
-- again; skipped_segments counts what it left out). do_not_probe (schema 1) marks a topic
-- boundary: events linked to the entity surface only when the question names it.

ALTER TABLE entities ADD COLUMN policy TEXT NOT NULL DEFAULT 'full'
    CHECK (policy IN ('full', 'summary_only', 'redact', 'no_capture'));
ALTER TABLE entities ADD COLUMN role_label TEXT NOT NULL DEFAULT '';
ALTER TABLE entities ADD COLUMN skipped_segments INTEGER NOT NULL DEFAULT 0
    CHECK (skipped_segments >= 0);
