-- Who may archive a personal card (migrations/subject/0006_archive.sql adds the columns).
--
-- A card is archived, never deleted, by setting topics.archived_at (and merged_into when a
-- merge archived it into another card); every query that shows cards leaves archived ones
-- out. A project role may UPDATE personal's rows (an upcast amends a card), so without a
-- guard it could also archive a personal card, hiding it from every other subject and from
-- personal itself. Removing shared knowledge is personal's own decision, as DELETE is: this
-- trigger refuses any change of archived_at or merged_into in personal (and any INSERT
-- that arrives already archived) unless the writer is personal's role, the owner (migrations,
-- restores) or a superuser (a human at psql). A project keeps amending personal's cards as before.
--
-- SECURITY INVOKER on purpose: current_user is then the writing role, in a login session and
-- under SET LOCAL ROLE (the embedded brain) alike (docs: machine notes, "who wrote it").
CREATE FUNCTION brain.archive_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text;
BEGIN
  IF TG_TABLE_SCHEMA <> 'personal' THEN RETURN NEW; END IF;
  IF TG_OP = 'INSERT' AND NEW.archived_at IS NULL AND NEW.merged_into IS NULL THEN RETURN NEW; END IF;
  IF TG_OP = 'UPDATE' AND OLD.archived_at IS NOT DISTINCT FROM NEW.archived_at AND OLD.merged_into IS NOT DISTINCT FROM NEW.merged_into THEN
    RETURN NEW;
  END IF;
  prefix := (SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix');
  IF current_user::text IN (prefix || 'personal', prefix || 'owner')
     OR coalesce((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user), false) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'only the personal brain may archive, unarchive or merge a personal card'
    USING ERRCODE = '42501',
          HINT = 'Nothing was changed. Ask in a personal session (the personal brain) to archive or merge this card; from a project, link to the card that should be used instead.';
END
$$;
