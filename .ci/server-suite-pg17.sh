#!/usr/bin/env bash
# The server-mode tests ([postgres]) against PostgreSQL 17 with pgvector: the lab's
# pgvector/pgvector:pg17 image in a throwaway container, published on loopback only.
# Needs the lab's Docker environment (eval "$(../shared/container-lab/lab-env)").
# The main `npm test` run covers Debian's PostgreSQL 15 without pgvector.
set -euo pipefail
cd "$(dirname "$0")/.."

name=claude-brain-test-pg17
password=$(od -An -tx1 -N18 /dev/urandom | tr -d ' \n')
docker rm -f "$name" >/dev/null 2>&1 || true
cleanup() { docker rm -f "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT

# The same settings the harness gives its throwaway PostgreSQL 15 (test/support/postgres-server.ts).
docker run -d --name "$name" -p 127.0.0.1::5432 -e POSTGRES_PASSWORD="$password" \
  pgvector/pgvector:pg17 postgres -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 >/dev/null
port=$(docker port "$name" 5432/tcp | head -n 1 | sed 's/.*://')
for _ in $(seq 1 60); do
  docker exec "$name" pg_isready -h 127.0.0.1 -U postgres >/dev/null 2>&1 && break
  sleep 1
done
docker exec "$name" pg_isready -h 127.0.0.1 -U postgres >/dev/null || { docker logs "$name" | tail -30; exit 1; }

echo "server-suite: [postgres] tests against $(docker exec "$name" postgres --version) on 127.0.0.1:$port"
BRAIN_TEST_DATABASE_URL="postgres://postgres:$password@127.0.0.1:$port/postgres" BRAIN_TEST_SKIP_BUILD=1 \
  node node_modules/vitest/vitest.mjs run --testNamePattern '\[postgres\]' "$@"
