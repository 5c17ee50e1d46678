#!/usr/bin/env bash
# brain-up.sh: bring the claude-brain stack up (Postgres + one MCP server per subject, on
# loopback) and prove each server ready. Runs on macOS's bash 3.2 and on Linux; needs docker
# with compose v2.24+, and curl; never node. See docs/deploy.md.
#
#   ./brain-up.sh                     start or update the stack, then health-check every server
#   ./brain-up.sh --external-db URL   the same against an existing Postgres with pgvector
#                                     (URL is the admin URL; `-` reads it from stdin)
#   ./brain-up.sh --status            what is running, and each server's readiness
#   ./brain-up.sh --logs [SUBJECT]    recent logs (of one subject's server, or db, or migrate)
#   ./brain-up.sh --down              stop the stack; the database volume is always kept
#
# Environment: BRAIN_OLLAMA_MODEL (nomic-embed-text), BRAIN_UP_TIMEOUT (seconds to wait for each
# server, 60), BRAIN_UP_POLL (seconds between tries, 2), BRAIN_UID/BRAIN_GID (only when run as root).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")" && pwd)
SECRETS="$ROOT/.brain/secrets"
COMPOSE_FILE="$ROOT/docker-compose.yml"
EXTERNAL_OVERRIDE="$ROOT/.brain/compose.external-db.yml"
OLLAMA="http://127.0.0.1:11434"
MODEL="${BRAIN_OLLAMA_MODEL:-nomic-embed-text}"
TIMEOUT="${BRAIN_UP_TIMEOUT:-60}"
POLL="${BRAIN_UP_POLL:-2}"

say() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

usage() { sed -n '2,15s/^# \{0,1\}//p' "$0"; }

# --- subjects: from subjects.yaml, with a small parser for its simple shape ----------------------

# Prints "name port" per subject, in file order. Accepts `name:` + `port: N` below it, or `name: {port: N}`.
subject_ports() {
  awk '
    /^[^[:space:]#]/ { in_subjects = ($0 ~ /^subjects:[[:space:]]*(#.*)?$/); name = ""; next }
    !in_subjects { next }
    /^  [a-z][a-z0-9_]*:/ {
      name = $1; sub(/:.*/, "", name)
      if ($0 ~ /port:[[:space:]]*[0-9]+/) { line = $0; sub(/.*port:[[:space:]]*/, "", line); sub(/[^0-9].*/, "", line); print name, line; name = "" }
      next
    }
    name != "" && /^    port:[[:space:]]*[0-9]+/ { port = $2; sub(/[^0-9].*/, "", port); print name, port; name = "" }
  ' "$ROOT/subjects.yaml"
}

role_prefix() {
  local p
  p=$(awk '/^role_prefix:/ { v = $2; gsub(/["'\'']/, "", v); print v; exit }' "$ROOT/subjects.yaml")
  printf '%s' "${p:-brain_}"
}

SUBJECTS=""   # "name:port name:port ..."; set by load_subjects
load_subjects() {
  [ -f "$ROOT/subjects.yaml" ] || die "no subjects.yaml in $ROOT"
  [ -f "$COMPOSE_FILE" ] || die "no docker-compose.yml in $ROOT; run: node dist/services/deploy/render-compose.js"
  SUBJECTS=$(subject_ports | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $1, $2 }')
  [ -n "$SUBJECTS" ] || die "subjects.yaml lists no subjects"
}

check_compose_current() {
  # The compose file names the subjects it was rendered for; a hand edit of subjects.yaml since
  # then would start the wrong set of servers, so stop here instead.
  local want have
  want="# brain-up.sh: role_prefix=$(role_prefix) subjects=$(printf '%s' "$SUBJECTS" | tr ' ' ',')"
  have=$(grep '^# brain-up.sh: ' "$COMPOSE_FILE" || true)
  if [ "$want" != "$have" ]; then
    die "docker-compose.yml is out of date with subjects.yaml; regenerate it: npm run build && node dist/services/deploy/render-compose.js"
  fi
}

# --- docker ---------------------------------------------------------------------------------------

compose() {
  if [ -f "$EXTERNAL_OVERRIDE" ]; then
    docker compose --project-directory "$ROOT" -f "$COMPOSE_FILE" -f "$EXTERNAL_OVERRIDE" "$@"
  else
    docker compose --project-directory "$ROOT" -f "$COMPOSE_FILE" "$@"
  fi
}

docker_answers() { docker info >/dev/null 2>&1; }

# Docker must answer; on a Mac that usually means colima, which we start if it is installed.
ensure_docker() {
  command -v docker >/dev/null 2>&1 || die "docker is not installed (on a Mac: brew install colima docker docker-compose)"
  if ! docker_answers; then
    command -v colima >/dev/null 2>&1 || die "Docker is not answering (docker info); start Docker, or install colima"
    say "Docker is not answering; starting colima ..."
    colima start || die "colima start failed; see: colima status"
    local deadline=$((SECONDS + TIMEOUT))
    until docker_answers; do
      [ "$SECONDS" -lt "$deadline" ] || die "colima started but Docker is still not answering after ${TIMEOUT}s"
      sleep "$POLL"
    done
  fi
  docker compose version >/dev/null 2>&1 || die "the docker compose plugin (v2.24+) is missing (brew install docker-compose)"
}

# --- Ollama: optional, but without it search silently degrades, so say so loudly --------------

check_ollama() {
  local tags want
  if ! tags=$(curl -fsS --max-time 3 "$OLLAMA/api/tags" 2>/dev/null); then
    warn "Ollama is not answering on $OLLAMA: search will be keyword-only until it is."
    warn "  fix: start it (ollama serve, or open the Ollama app), then: ollama pull $MODEL"
    return 0
  fi
  # Ollama lists models as name:tag; a bare name means :latest.
  case "$MODEL" in *:*) want="$MODEL" ;; *) want="$MODEL:latest" ;; esac
  # grep without -q reads all its input: with pipefail, an early exit could fail the pipe.
  if ! printf '%s' "$tags" | grep -o '"name"[[:space:]]*:[[:space:]]*"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | grep -Fx "$want" >/dev/null; then
    warn "Ollama is running but has no model $MODEL: search will be keyword-only until it has."
    warn "  fix: ollama pull $MODEL"
  fi
}

# --- secrets: generated once, 0600, never printed ---------------------------------------------

random_secret() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }

# write_secret FILE VALUE: only when FILE is missing; the value goes from a variable to the file.
write_secret() {
  [ -s "$1" ] && return 0
  (umask 077 && printf '%s\n' "$2" > "$1")
}

ensure_secrets() {
  (umask 077 && mkdir -p "$SECRETS")
  chmod 700 "$ROOT/.brain" "$SECRETS"
  write_secret "$SECRETS/postgres_password" "$(random_secret)"
  # The admin URL of the bundled db, built from its password (hex, so no URL escaping).
  if [ ! -s "$SECRETS/admin_url" ]; then
    local pw
    pw=$(head -n 1 "$SECRETS/postgres_password")
    write_secret "$SECRETS/admin_url" "postgres://postgres:$pw@db:5432/brain"
  fi
  local prefix entry
  prefix=$(role_prefix)
  write_secret "$SECRETS/${prefix}audit.password" "$(random_secret)"
  for entry in $SUBJECTS; do
    write_secret "$SECRETS/$prefix${entry%%:*}.password" "$(random_secret)"
  done
  chmod 600 "$SECRETS"/*
  # Compose bind-mounts secret files as they are on disk, so the containers run as their owner.
  # Run as root (a Linux server), the files are handed to BRAIN_UID instead: never root in a container.
  if [ "$(id -u)" = 0 ]; then
    chown "$BRAIN_UID:$BRAIN_GID" "$SECRETS"/*
  fi
}

# --- --external-db: no db container; migrate and the servers use the given server -----------

use_external_db() {
  local admin="$1" plain entry prefix
  if [ "$admin" = "-" ]; then IFS= read -r admin || true; fi
  case "$admin" in
    postgres://*@* | postgresql://*@*) ;;
    *) die "--external-db wants the admin URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE (or - to read it from stdin)" ;;
  esac
  # The servers get the same location without credentials.
  plain=$(printf '%s' "$admin" | sed -E 's#^(postgres(ql)?://)[^@]*@#\1#')
  # It goes into a YAML file that compose interpolates: no quotes, spaces or $.
  printf '%s' "$plain" | grep -Eq '^postgres(ql)?://[A-Za-z0-9._~%:/?=&-]+$' ||
    die "--external-db: the host, port and database part holds characters this script will not put in a compose file"
  case "$plain" in
    *://localhost[:/]* | *://127.*) warn "--external-db points at $plain; inside a container that is the container itself: use host.docker.internal for a database on this machine" ;;
  esac
  (umask 077 && mkdir -p "$SECRETS" && printf '%s\n' "$admin" > "$SECRETS/external_admin_url")
  prefix=$(role_prefix)
  {
    say "# Written by brain-up.sh --external-db; rewritten on every such run. Delete it to go back to"
    say "# the bundled db container. Needs docker compose 2.24+ (!reset)."
    say "services:"
    say "  db:"
    say "    profiles: [bundled-db]   # never started"
    say "  migrate:"
    say "    depends_on: !reset {}"
    say "    extra_hosts: [\"host.docker.internal:host-gateway\"]"
    say "    environment:"
    say "      BRAIN_DATABASE_URL: \"$plain\""
    for entry in $SUBJECTS; do
      say "  brain-${entry%%:*}:"
      say "    environment:"
      say "      BRAIN_DATABASE_URL: \"$plain\""
    done
    say "secrets:"
    say "  brain_admin_url:"
    say "    file: ./.brain/secrets/external_admin_url"
  } > "$EXTERNAL_OVERRIDE"
  say "Using the external database at $plain (${prefix}* roles are created there by migrate)."
}

# --- readiness ------------------------------------------------------------------------------------

ready() { curl -fsS --max-time 3 -o /dev/null "http://127.0.0.1:$1/readyz" >/dev/null 2>&1; }

# wait_ready PORT SECONDS: polls /readyz until it answers 200 or the time is up.
wait_ready() {
  local deadline=$((SECONDS + $2))
  until ready "$1"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep "$POLL"
  done
}

# report WAIT_SECONDS: the table of servers; returns 1 naming every server that is not ready.
report() {
  local entry name port status bad=""
  printf '\n%-12s %-30s %s\n' SUBJECT URL STATUS
  for entry in $SUBJECTS; do
    name=${entry%%:*}; port=${entry##*:}
    if wait_ready "$port" "$1"; then status=ready; else status="NOT READY"; bad="$bad $name"; fi
    printf '%-12s %-30s %s\n' "$name" "http://127.0.0.1:$port/mcp" "$status"
  done
  if [ -n "$bad" ]; then
    printf '\nerror: not ready:%s (see ./brain-up.sh --logs SUBJECT)\n' "$bad" >&2
    return 1
  fi
}

print_clients() {
  local entry
  say ""
  say "Claude Code, once per subject:"
  for entry in $SUBJECTS; do
    say "  claude mcp add --transport http brain-${entry%%:*} http://127.0.0.1:${entry##*:}/mcp"
  done
}

# --- migrate: the one-shot bootstrap must exit 0 before any server is worth asking -----------

wait_migrate() {
  local deadline=$((SECONDS + ${BRAIN_UP_MIGRATE_TIMEOUT:-300})) state code
  while :; do
    read -r state code <<EOF
$(compose ps -a --format '{{.State}} {{.ExitCode}}' migrate 2>/dev/null | head -n 1)
EOF
    if [ "${state:-}" = exited ]; then
      [ "${code:-1}" = 0 ] && return 0
      migrate_failed "migrate exited with status ${code:-unknown}"
    fi
    [ "$SECONDS" -lt "$deadline" ] || migrate_failed "migrate did not finish within ${BRAIN_UP_MIGRATE_TIMEOUT:-300}s"
    sleep "$POLL"
  done
}

migrate_failed() {
  printf 'error: %s\n' "$1" >&2
  compose ps -a >&2 || true
  printf '\nthe log of migrate:\n' >&2
  compose logs --no-color --tail 60 migrate >&2 || true
  exit 1
}

# --- commands -------------------------------------------------------------------------------------

cmd_up() {
  check_compose_current
  ensure_docker
  check_ollama
  ensure_secrets
  # The image bakes in subjects.yaml, kinds.yaml and the deny-list: build every time and let the
  # layer cache decide what is stale (seconds when nothing changed).
  say "Building the image ..."
  compose build || die "docker compose build failed"
  say "Starting the stack ..."
  # up blocks until migrate has exited, since the servers wait for it; --remove-orphans stops the
  # server of a subject that was removed. Never -v: the database volume outlives every run.
  compose up -d --remove-orphans || migrate_failed "docker compose up failed"
  wait_migrate
  report "$TIMEOUT" || exit 1
  print_clients
}

cmd_status() {
  docker_answers || die "Docker is not answering (docker info); nothing is running"
  compose ps -a
  check_ollama
  report 0
}

cmd_logs() {
  docker_answers || die "Docker is not answering (docker info)"
  local service="${1:-}"
  case "$service" in
    "" | db | migrate) ;;
    *)
      case " $SUBJECTS " in *" $service:"*) ;; *) die "unknown subject \"$service\"; the subjects are: $SUBJECTS" ;; esac
      service="brain-$service"
      ;;
  esac
  if [ -n "$service" ]; then compose logs --no-color --tail 200 "$service"; else compose logs --no-color --tail 200; fi
}

cmd_down() {
  if ! docker_answers; then say "Docker is not answering, so nothing of the stack is running."; return 0; fi
  # Stops and removes the containers and network only. The volume claude-brain-pgdata stays.
  compose down --remove-orphans
}

main() {
  local action=up external="" logs_subject=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --down) action=down ;;
      --status) action=status ;;
      --logs)
        action=logs
        if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then logs_subject="$2"; shift; fi
        ;;
      --external-db)
        [ $# -gt 1 ] || die "--external-db needs the admin URL (or - to read it from stdin)"
        external="$2"; shift
        ;;
      -h | --help) usage; return 0 ;;
      *) usage >&2; die "unknown option: $1" ;;
    esac
    shift
  done
  if [ -n "$external" ] && [ "$action" != up ]; then die "--external-db goes with bringing the stack up, not with --$action"; fi

  # The containers run as the host user (see ensure_secrets); root hands them to BRAIN_UID.
  if [ "$(id -u)" = 0 ]; then
    BRAIN_UID="${BRAIN_UID:-1000}"; BRAIN_GID="${BRAIN_GID:-1000}"
    [ "$BRAIN_UID" != 0 ] || die "BRAIN_UID=0 would run the containers as root; choose another user"
  else
    BRAIN_UID=$(id -u); BRAIN_GID=$(id -g)
  fi
  export BRAIN_UID BRAIN_GID BRAIN_OLLAMA_MODEL="$MODEL"

  load_subjects
  [ -z "$external" ] || use_external_db "$external"
  case "$action" in
    up) cmd_up ;;
    status) cmd_status ;;
    logs) cmd_logs "$logs_subject" ;;
    down) cmd_down ;;
  esac
}

main "$@"
