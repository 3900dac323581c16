-- Migration 012's marks, for the other tables whose ids are allocated with next_id and cited
-- outside the memory: a correction ("correction 5 (journal row 10)" in every BLOCKED verdict),
-- a guard override, an upkeep proposal. Without them the next one made after the newest was
-- undone or erased took its id.
CREATE TRIGGER corrections_id_high_water AFTER DELETE ON corrections BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('corrections', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER guard_overrides_id_high_water AFTER DELETE ON guard_overrides BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('guard_overrides', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
CREATE TRIGGER upkeep_proposals_id_high_water AFTER DELETE ON upkeep_proposals BEGIN
    INSERT INTO id_high_water (name, top) VALUES ('upkeep_proposals', OLD.id)
        ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top);
END;
