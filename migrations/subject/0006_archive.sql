-- Archive: a soft delete that keeps the card, its history and its slug (services/knowledge/archive.ts).
-- An archived card is left out of search, list, get, lint and link targets, and comes back
-- unchanged when it is unarchived. A merge archives the merged card with merged_into naming
-- the survivor (a slug in the same subject), so its slug still resolves: "merged into X".
-- Both columns are ordinary content for the history triggers: archiving or unarchiving
-- writes a version (the state before) and an outbox row, like any other update.
ALTER TABLE topics ADD COLUMN archived_at timestamptz;
ALTER TABLE topics ADD COLUMN merged_into text;
ALTER TABLE topics ADD CONSTRAINT topics_merged_into_check
  CHECK (merged_into IS NULL OR (archived_at IS NOT NULL AND merged_into <> slug));

-- Only personal's own role may archive a personal card (migrations/global/0008_archive_guard.sql);
-- a no-op in every other subject, where no other role can write anyway. Fires after the
-- text and before the deny-list, versions and audit (same-event triggers fire by name).
CREATE TRIGGER topics_15_archive BEFORE INSERT OR UPDATE ON topics FOR EACH ROW EXECUTE FUNCTION brain.archive_guard();
