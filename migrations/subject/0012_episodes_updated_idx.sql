-- The embed worker's look while nothing is pending (services/search/worker.ts) asks only whether
-- a card changed since its last full look is pending: a range of updated_at on topics
-- (topics_updated_idx) and on episodes, which had no such index. Without it that look read every
-- episode, 27 ms at 64,000 of them, every two seconds of an awake server.
CREATE INDEX episodes_updated_idx ON episodes (updated_at);
