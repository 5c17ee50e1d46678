#!/usr/bin/env bash
# The stack suite: a scratch copy of the project, ./brain-up.sh there (its table of servers is
# the first proof), the end-to-end steps in test/stack/stack.e2e.ts, and ./brain-up.sh --down
# on the way out whatever happened. The suite deletes and recreates the stack's database volume
# (the backup step restores into an empty one), so it runs only against the container lab's
# private daemon (../shared/container-lab), never a Docker holding a real brain.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

case "${DOCKER_HOST:-}" in
  unix://*/container-lab/docker.sock) ;;
  *)
    [ "${BRAIN_STACK_ANY_DOCKER:-}" = 1 ] || {
      echo "test/stack/run.sh: DOCKER_HOST is not the container lab's daemon; the suite deletes the claude-brain-pgdata volume." >&2
      echo "  run: eval \"\$(../shared/container-lab/lab-env)\"  (or BRAIN_STACK_ANY_DOCKER=1 on a throwaway Docker)" >&2
      exit 2
    }
    ;;
esac
[ -f "$ROOT/dist/cli/brain.js" ] || { echo "test/stack/run.sh: build first (npm run build)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/brain-stack-XXXXXX")
cleanup() {
  local code=$?
  echo "stack: taking the stack down"
  docker rm -f claude-brain-test-extdb >/dev/null 2>&1 || true
  (cd "$work" && bash ./brain-up.sh --down) || true
  docker volume rm claude-brain-pgdata >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT

# The project as a fresh clone of the last commit has it, as CI sees it: commit what you want tested.
git -C "$ROOT" archive HEAD | tar -xf - -C "$work"
# The host-side CLI (`brain subjects add`) runs from the built output; the image builds its own.
ln -s "$ROOT/node_modules" "$work/node_modules"
cp -R "$ROOT/dist" "$work/dist"

# A new machine's stack: no volume from an earlier run (its superuser password would not match).
docker rm -f claude-brain-test-extdb >/dev/null 2>&1 || true
(cd "$work" && bash ./brain-up.sh --down >/dev/null 2>&1) || true
docker volume rm claude-brain-pgdata >/dev/null 2>&1 || true

echo "stack: ./brain-up.sh in $work"
start=$SECONDS
(cd "$work" && bash ./brain-up.sh)
echo "stack: up in $((SECONDS - start))s"

# The reporter's summary names the server the [postgres] steps ran on.
BRAIN_TEST_SERVER_LABEL="the stack's $(docker exec claude-brain-db-1 postgres --version | sed 's/^postgres (PostgreSQL) /PostgreSQL /') + pgvector $(docker exec claude-brain-db-1 psql -U postgres -d brain -Atc "SELECT extversion FROM pg_extension WHERE extname = 'vector'")"
export BRAIN_TEST_SERVER_LABEL
BRAIN_STACK_DIR="$work" node "$ROOT/node_modules/vitest/vitest.mjs" run --config "$ROOT/vitest.stack.config.ts" --root "$ROOT"
