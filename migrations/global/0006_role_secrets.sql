-- A fingerprint (sha256) of each login role's password file as last applied, so the
-- bootstrap notices a regenerated or edited file and sets the role's password again,
-- and otherwise leaves the role alone. Owner-only, like the rest of brain_private.
CREATE TABLE brain_private.role_secrets (
  role   text PRIMARY KEY,
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$')
);
