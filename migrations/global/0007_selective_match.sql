-- Helpers for narrowing which cards a question ranks (services/search/selectivity.ts picks
-- the words by how many cards hold each; services/search/keyword.ts runs the plan).

-- The lexemes of a query's plain words, as the configuration in force stems them: what
-- brain.any_word_query OR-s together.
CREATE FUNCTION brain.query_lexemes(cfg regconfig, words text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$ SELECT tsvector_to_array(to_tsvector(cfg, coalesce(words, ''))) $$;

-- A tsquery requiring every one of `lexemes` (already normalised, so not stemmed again).
-- NULL for an empty array. Each lexeme is quoted for the tsquery parser by hand (a quote
-- doubled, a backslash escaped): quote_literal would write E'...' for a backslash.
CREATE FUNCTION brain.lexeme_query(lexemes text[]) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
  q tsquery;
  lexeme text;
  term tsquery;
BEGIN
  FOREACH lexeme IN ARRAY coalesce(lexemes, '{}') LOOP
    term := ('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')::tsquery;
    q := CASE WHEN q IS NULL THEN term ELSE q && term END;
  END LOOP;
  RETURN q;
END
$$;
