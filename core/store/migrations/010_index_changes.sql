-- The index change log (docs/architecture.md, "The vector index"): which events changed since a
-- given revision, so a process that holds the in-memory vector index (this one or another)
-- re-reads only those rows instead of reloading every vector. Written by triggers, so every
-- write path is covered (change sets, replay, undo, erasure, cascades); holds ids only, never
-- memory text. kind: 'text' (an event was added, removed or re-worded: the FTS index and its
-- word counts moved too), 'row' (an indexed column, vector or emotion of an event changed),
-- 'chain' (a chain link touching the event changed).
-- The revision is sqlite_sequence's value for this table (it never goes back, even when the log
-- is pruned). The log keeps its last 100,000 rows; a reader older than index_log_floor (the last
-- pruned seq) reloads in full.

CREATE TABLE index_changes (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id INTEGER NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('text', 'row', 'chain'))
);
INSERT INTO pulse_meta (key, value) VALUES ('index_log_floor', '0');
CREATE TRIGGER index_changes_prune AFTER INSERT ON index_changes WHEN new.seq % 4096 = 0 BEGIN
    DELETE FROM index_changes WHERE seq <= new.seq - 100000;
    UPDATE pulse_meta SET value = MAX(CAST(value AS INTEGER), new.seq - 100000)
        WHERE key = 'index_log_floor';
END;

-- The whole-memory counter of schema 1 is replaced by the log (one revision, finer grain).
DROP TRIGGER emb_rev_ins;
DROP TRIGGER emb_rev_del;
DROP TRIGGER emb_rev_upd;
DROP TRIGGER ev_rev_upd;
DROP TRIGGER ev_rev_del;
DROP TRIGGER emo_rev_any;
DROP TRIGGER emo_rev_upd;
DROP TRIGGER chain_rev_ins;
DROP TRIGGER chain_rev_del;
DELETE FROM pulse_meta WHERE key = 'index_rev';

CREATE TRIGGER ixlog_ev_ins AFTER INSERT ON events BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (new.id, 'text'); END;
CREATE TRIGGER ixlog_ev_del AFTER DELETE ON events BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (old.id, 'text'); END;
CREATE TRIGGER ixlog_ev_upd AFTER UPDATE ON events BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (new.id, CASE
        WHEN new.title IS NOT old.title OR new.description IS NOT old.description
        THEN 'text' ELSE 'row' END);
END;
CREATE TRIGGER ixlog_emb_ins AFTER INSERT ON event_embeddings BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (new.event_id, 'row'); END;
CREATE TRIGGER ixlog_emb_del AFTER DELETE ON event_embeddings BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (old.event_id, 'row'); END;
CREATE TRIGGER ixlog_emb_upd AFTER UPDATE ON event_embeddings BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (new.event_id, 'row'); END;
CREATE TRIGGER ixlog_emo_ins AFTER INSERT ON event_emotions BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (new.event_id, 'row'); END;
CREATE TRIGGER ixlog_emo_del AFTER DELETE ON event_emotions BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (old.event_id, 'row'); END;
CREATE TRIGGER ixlog_emo_upd AFTER UPDATE ON event_emotions BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (new.event_id, 'row'); END;
CREATE TRIGGER ixlog_chain_ins AFTER INSERT ON event_chains BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (new.parent_id, 'chain'), (new.child_id, 'chain');
END;
CREATE TRIGGER ixlog_chain_del AFTER DELETE ON event_chains BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (old.parent_id, 'chain'), (old.child_id, 'chain');
END;
CREATE TRIGGER ixlog_chain_upd AFTER UPDATE ON event_chains BEGIN
    INSERT INTO index_changes (event_id, kind) VALUES (old.parent_id, 'chain'), (old.child_id, 'chain'),
        (new.parent_id, 'chain'), (new.child_id, 'chain');
END;
-- an event's conversational neighbours come from its observation's source kind and time
CREATE TRIGGER ixlog_obs_upd AFTER UPDATE OF source_kind, observed_at ON observations BEGIN
    INSERT INTO index_changes (event_id, kind)
        SELECT id, 'row' FROM events WHERE source_observation = new.id;
END;
