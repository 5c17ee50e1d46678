#!/usr/bin/env bash
# Runs the official MCP conformance suite (needs Node >= 22) against a real subject
# server of the embedded brain. Usage: .ci/conformance.sh NODE24_BIN_DIR TOOLS_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
node24_bin=$1
tools=$2
home=$(mktemp -d)
port=$(( 21000 + RANDOM % 20000 ))
config=$(mktemp -d)
cp kinds.yaml deny-list.yaml "$config/"
printf 'role_prefix: brain_\nsubjects:\n  personal:\n    port: %d\n  homelab:\n    port: %d\n' "$port" "$((port + 1))" > "$config/subjects.yaml"
export BRAIN_HOME="$home" BRAIN_CONFIG_DIR="$config" BRAIN_EMBEDDER=none
"$node24_bin/node" dist/cli/brain.js up > "$home/up.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$home" "$config"' EXIT
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$((port + 1))/readyz" >/dev/null 2>&1; then break; fi
  sleep 1
done
curl -fsS "http://127.0.0.1:$((port + 1))/readyz" >/dev/null || { cat "$home/up.log"; exit 1; }
PATH="$node24_bin:$PATH" node "$tools/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
  --url "http://127.0.0.1:$((port + 1))/mcp" --expected-failures .ci/conformance-expected-failures.yaml
