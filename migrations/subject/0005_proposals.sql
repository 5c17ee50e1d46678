-- Session-close proposals: a batch of proposed writes waiting for the human. Holding a
-- proposal writes no knowledge; the row itself is audited like every other write, so a
-- declined or expired proposal leaves its audit record and nothing else.
CREATE TABLE proposals (
  id           uuid PRIMARY KEY,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'committed', 'declined', 'expired')),
  -- true when the human was asked directly (elicitation): then only their answer settles it.
  asked_human  boolean NOT NULL DEFAULT false,
  items        jsonb NOT NULL,
  outcome      jsonb,
  settled_at   timestamptz
);
CREATE INDEX proposals_pending_idx ON proposals (expires_at) WHERE status = 'pending';

CREATE TRIGGER proposals_00_actor BEFORE INSERT OR UPDATE OR DELETE ON proposals FOR EACH STATEMENT EXECUTE FUNCTION brain.note_actor();
CREATE TRIGGER proposals_90_audit AFTER INSERT OR UPDATE OR DELETE ON proposals FOR EACH ROW EXECUTE FUNCTION brain.audit_row();
