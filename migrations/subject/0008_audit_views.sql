-- Audit views for people with psql (issue 18; docs/view.md has the queries to type). One set
-- per subject schema, read as the audit role (which reads every subject) or as the subject's
-- own role. SECURITY INVOKER: a view reads with the privileges of whoever queries it, never
-- its owner's, so it shows nobody anything their grants would not (test/isolation-attacks
-- checks that every view in a subject schema is so). None of them is updatable.

-- Writes into this schema by another subject's role, with the reason each gave; only personal
-- receives them. Reason-less ones (flagged by the outbox trigger) first when ordered by
-- `flagged DESC`.
CREATE VIEW audit_upcasts WITH (security_invoker = true) AS
SELECT o.id, o.at, o.actor, o.operation, o.table_name, o.slug, o.app_operation, o.reason, o.flagged
  FROM outbox o
 WHERE o.is_upcast
 LIMIT ALL;

-- Writes the outbox flagged: an upcast without a reason.
CREATE VIEW audit_flagged_writes WITH (security_invoker = true) AS
SELECT o.id, o.at, o.actor, o.operation, o.table_name, o.slug, o.app_operation
  FROM outbox o
 WHERE o.flagged
 LIMIT ALL;

-- Writes per week (UTC), by role and table: what each subject has been doing, and who wrote.
CREATE VIEW audit_activity WITH (security_invoker = true) AS
SELECT (date_trunc('week', o.at AT TIME ZONE 'UTC'))::date AS week,
       o.actor,
       o.table_name,
       count(*)::int AS writes,
       count(*) FILTER (WHERE o.is_upcast)::int AS upcasts,
       count(*) FILTER (WHERE o.flagged)::int AS flagged,
       max(o.at) AS last_at
  FROM outbox o
 GROUP BY 1, 2, 3;

-- Live cards of one kind whose titles are the same words (case and punctuation aside): the
-- cheap first cut at duplicates. The web view's health page weighs more pairs, with the
-- judgement search before add uses (services/search/judgement.ts).
CREATE VIEW audit_duplicate_candidates WITH (security_invoker = true) AS
SELECT a.kind, a.slug AS slug_a, b.slug AS slug_b, a.title AS title_a, b.title AS title_b,
       greatest(a.updated_at, b.updated_at) AS last_updated
  FROM topics a
  JOIN topics b ON b.kind = a.kind AND b.id > a.id
   AND lower(btrim(regexp_replace(b.title, '[^[:alnum:]]+', ' ', 'g'))) = lower(btrim(regexp_replace(a.title, '[^[:alnum:]]+', ' ', 'g')))
 WHERE a.archived_at IS NULL AND b.archived_at IS NULL;

-- The web view's activity chart counts card and episode writes per week (services/view/pages/
-- overview.ts): over this index alone, not every tag, link and source row of the outbox.
CREATE INDEX outbox_card_writes_at_idx ON outbox (at) WHERE table_name IN ('topics', 'episodes');
