-- Retrieval helpers: one definition of each card's weighted full-text vector (used by the
-- write trigger and by the reindex after a language change), and the query builder that
-- gives natural-language questions any-word semantics while quoted phrases and
-- -exclusions stay strict. All pure; app roles get EXECUTE in db/grants/role.sql.

-- Title and slug A, summary B, body C, timeline D (as migration 0002 defined it).
CREATE FUNCTION brain.topic_search_vector(cfg regconfig, title text, slug text, summary text, body text, timeline text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
  SELECT setweight(to_tsvector(cfg, coalesce(title, '') || ' ' || replace(coalesce(slug, ''), '/', ' ')), 'A')
      || setweight(to_tsvector(cfg, coalesce(summary, '')), 'B')
      || setweight(to_tsvector(cfg, coalesce(body, '')), 'C')
      || setweight(to_tsvector(cfg, coalesce(timeline, '')), 'D')
$$;

CREATE FUNCTION brain.episode_search_vector(cfg regconfig, title text, summary text, detail text, source_label text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
  SELECT setweight(to_tsvector(cfg, coalesce(title, '')), 'A')
      || setweight(to_tsvector(cfg, coalesce(summary, '')), 'B')
      || setweight(to_tsvector(cfg, coalesce(detail, '') || ' ' || coalesce(source_label, '')), 'C')
$$;

-- The same trigger as before, now computing the vector through the helpers above, so a
-- reindex (services/search/text-search-config.ts) writes exactly what a write would.
CREATE OR REPLACE FUNCTION brain.before_write() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  cfg regconfig := brain.text_search_config();
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF brain.same_content(OLD, NEW) THEN
      NEW.updated_at := OLD.updated_at;
      RETURN NEW;
    END IF;
    NEW.updated_at := now();
  END IF;
  IF TG_TABLE_NAME = 'topics' THEN
    NEW.search := brain.topic_search_vector(cfg, NEW.title, NEW.slug, NEW.summary, NEW.body, NEW.timeline);
  ELSE
    NEW.search := brain.episode_search_vector(cfg, NEW.title, NEW.summary, NEW.detail, NEW.source_label);
  END IF;
  RETURN NEW;
END
$$;

-- The OR of the lexemes of `words` (stop words dropped, stemmed by cfg). Lexemes are cast
-- to tsquery quoted and as they are, so they are not stemmed a second time.
CREATE FUNCTION brain.any_word_query(cfg regconfig, words text) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
  q tsquery;
  lexeme text;
BEGIN
  FOREACH lexeme IN ARRAY tsvector_to_array(to_tsvector(cfg, coalesce(words, ''))) LOOP
    q := CASE WHEN q IS NULL THEN quote_literal(lexeme)::tsquery ELSE q || quote_literal(lexeme)::tsquery END;
  END LOOP;
  RETURN coalesce(q, ''::tsquery);
END
$$;

-- A search query in three pieces (services/search/text-query.ts splits what was typed):
-- quoted phrases (all required), exclusions (all required absent) and plain words (any
-- one suffices; more matches rank higher). `match` selects rows, `rank` orders them.
CREATE FUNCTION brain.search_query(cfg regconfig, phrases text, exclusions text, words text, OUT match tsquery, OUT rank tsquery)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
  required tsquery := websearch_to_tsquery(cfg, coalesce(phrases, ''));
  excluded tsquery := websearch_to_tsquery(cfg, coalesce(exclusions, ''));
  loose tsquery := brain.any_word_query(cfg, words);
BEGIN
  -- An empty tsquery combined with && or || yields the other operand.
  match := CASE WHEN numnode(required) > 0 THEN required ELSE loose END && excluded;
  rank := required || loose;
END
$$;
