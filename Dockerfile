# The claude-brain image: one subject's MCP server (`serve --subject NAME`) or the bootstrap
# (`init`), chosen by the command. Built by ./brain-up.sh through docker compose (docs/deploy.md).
# Three stages: the final one holds only production dependencies, the compiled dist/ and the
# config it reads, all owned by root and read-only to the (non-root) process.

ARG NODE_IMAGE=node:24-slim

# 1. Build: every dependency (TypeScript and rolldown included), then the product's code into
#    dist/ (tsconfig.image.json: config, db, services, cli; not the benchmarks, which need test/),
#    then the CLI bundled into dist/cli/brain.js (scripts/bundle.mjs: a start loads a few dozen
#    files instead of about 900). rolldown's native code is an optional dependency, no script.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No dependency needs an install script; refusing them all is one less way in.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npx tsc -p tsconfig.image.json
RUN node scripts/bundle.mjs

# 2. Production dependencies only, installed apart so the final stage gets no npm cache. koffi
# (28 MB of prebuilt binaries) only gives a sleeping embedded brain's memory back, and this image
# runs against a Postgres server (db/process-memory.ts does without it).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && rm -rf node_modules/koffi

# 3. Runtime.
FROM ${NODE_IMAGE} AS runtime
# Made to run with a read-only root filesystem: HOME and npm's cache point at the /tmp tmpfs;
# BRAIN_HOME only matters to the embedded brain, which this image is not for.
ENV NODE_ENV=production \
    HOME=/tmp \
    NPM_CONFIG_CACHE=/tmp/.npm \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    BRAIN_HOME=/tmp/brain \
    BRAIN_HOST=0.0.0.0 \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072
# MALLOC_*: what bin/brain sets outside the image (glibc's malloc with two arenas, not eight a
# core, and a fixed trim threshold, so what V8's threads free goes back; docs/performance.md).
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# Read at run time: package.json (the package root), the migrations, the grants the bootstrap
# applies, and the config-as-code. test/deploy/runtime-paths.test.ts traces what the built
# server really reads and fails when a path it reads is not copied here.
COPY package.json subjects.yaml kinds.yaml deny-list.yaml ./
COPY migrations ./migrations
COPY db/grants ./db/grants
# `node` (uid 1000) ships with the image; compose runs it as the host user instead, still non-root.
USER node
# Liveness for a plain `docker run`; compose's own check asks /readyz. No curl in slim: node asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/services/deploy/healthcheck.js", "/healthz"]
ENTRYPOINT ["node", "dist/cli/brain.js"]
CMD ["--help"]
