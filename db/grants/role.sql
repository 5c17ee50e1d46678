-- What every app role (each subject role and the audit role) gets outside the subjects.
-- Placeholders: {{database}}, {{role}}.

GRANT CONNECT ON DATABASE {{database}} TO {{role}};
-- Shared, non-secret vocabulary and settings; the extension types and operators.
GRANT USAGE ON SCHEMA brain, brain_ext TO {{role}};
GRANT SELECT ON brain.kinds, brain.settings TO {{role}};
-- Pure helpers that our SECURITY INVOKER triggers call as the writer.
GRANT EXECUTE ON FUNCTION brain.text_search_config(), brain.same_content(anyelement, anyelement), brain.tx_setting(text), brain.role_prefix() TO {{role}};
-- Readiness: applied migration numbers and the deny-list's rule count (never the rules).
GRANT EXECUTE ON FUNCTION brain.schema_status() TO {{role}};
-- brain_private (the deny-list and its tokens) is deliberately absent: no app role may
-- read it. Its functions run as the owner from triggers, which need no EXECUTE grant.
-- Retrieval helpers (migrations/global/0003_search.sql): the write trigger computes the
-- full-text vector with them, and search queries build their tsquery with them.
GRANT EXECUTE ON FUNCTION brain.topic_search_vector(regconfig, text, text, text, text, text),
  brain.episode_search_vector(regconfig, text, text, text, text),
  brain.any_word_query(regconfig, text),
  brain.search_query(regconfig, text, text, text),
  brain.query_lexemes(regconfig, text),
  brain.lexeme_query(text[]) TO {{role}};
