-- Ids are never given twice. A new row takes MAX(id) + 1 (core/store/commands.py next_id: ids
-- are allocated explicitly so a replay gives the same ones), so once the newest event was
-- erased or undone, the next event would have taken its id, and anything still holding
-- "event:N" (a companion's context, an exported viewer, a therapist's note) would name another
-- moment. Each table whose ids are allocated that way remembers the highest id it ever deleted;
-- next_id starts above it. Bookkeeping, not memory: never journaled, out of the digest (a
-- replay fires the same triggers, so it ends with the same marks). Only numbers are kept.
CREATE TABLE id_high_water (
    name TEXT PRIMARY KEY,
    top  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER observations_id_high_water AFTER DELETE ON observations BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('observations', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER entities_id_high_water AFTER DELETE ON entities BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('entities', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER relations_id_high_water AFTER DELETE ON relations BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('relations', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER events_id_high_water AFTER DELETE ON events BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('events', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER facts_id_high_water AFTER DELETE ON facts BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('facts', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER merge_proposals_id_high_water AFTER DELETE ON merge_proposals BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('merge_proposals', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER glossary_id_high_water AFTER DELETE ON glossary BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('glossary', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER glossary_candidates_id_high_water AFTER DELETE ON glossary_candidates BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('glossary_candidates', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
