-- Shared, non-secret metadata every subject's tables refer to.
-- Runs as the owner role with search_path = brain; names are qualified anyway.

-- The registry of subjects, for the audit role and the bootstrap. No subject role reads it.
CREATE TABLE brain.subjects (
  name        text PRIMARY KEY,
  role        text NOT NULL UNIQUE,
  is_personal boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- The kind vocabulary, synced from kinds.yaml on every bootstrap. Topics and episodes
-- reference (name, class) with a foreign key, so an unknown kind or a kind of the wrong
-- class is refused by Postgres itself, for psql writes too.
CREATE TABLE brain.kinds (
  name        text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9-]*$'),
  class       text NOT NULL CHECK (class IN ('topic', 'episode')),
  description text NOT NULL DEFAULT '',
  UNIQUE (name, class)
);

-- Brain-wide settings (text-search configuration and the like).
CREATE TABLE brain.settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);
INSERT INTO brain.settings (key, value) VALUES ('text_search_config', 'english');

-- The text-search configuration in force. STABLE, not IMMUTABLE: it reads a table.
CREATE FUNCTION brain.text_search_config() RETURNS regconfig
LANGUAGE sql STABLE
SET search_path = pg_catalog
AS $$
  SELECT COALESCE((SELECT value FROM brain.settings WHERE key = 'text_search_config'), 'english')::regconfig
$$;

-- Keeps updated_at honest whoever writes the row.
CREATE FUNCTION brain.touch_updated_at() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END
$$;
