-- What every app role (each subject role and the audit role) gets outside the subjects.
-- Placeholders: {{database}}, {{role}}.

GRANT CONNECT ON DATABASE {{database}} TO {{role}};
-- Shared, non-secret vocabulary and settings; the extension types and operators.
GRANT USAGE ON SCHEMA brain, brain_ext TO {{role}};
GRANT SELECT ON brain.kinds, brain.settings TO {{role}};
GRANT EXECUTE ON FUNCTION brain.text_search_config() TO {{role}};
-- brain_private (the deny-list's tokens) is deliberately absent: no app role may read it.
