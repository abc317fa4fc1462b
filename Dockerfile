# syntax=docker/dockerfile:1
# CometChat Ops for Slack: a production image. Build with `docker build -t cometchat-ops .`.
# test/recipe/recipe-steps.ts runs this file's COPY and npm steps in clean directories and starts
# the result with node (CI runs it); the image build itself needs a container engine.

# 1. Compile the TypeScript with every locked dependency.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json esbuild.config.mjs ./
COPY src ./src
RUN npm run build

# 2. The production dependencies alone: plain JavaScript (SQLite is Node's own node:sqlite), so
# nothing is compiled and no install script runs.
FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# 3. What runs: node, the compiled app and its production dependencies, as a non-root user.
FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production
ENV PORT=3000
# Node's compile cache (V8's compiled code of the bundle, dist/app.mjs and dist/run.mjs), filled below: a
# start reads it instead of compiling the bundle again (`npm run bench:startup` measures it).
# Node checks each entry against its file, so a changed file is compiled afresh; a cache it
# cannot read or write (another user, a read-only file system) is skipped without a word.
ENV NODE_COMPILE_CACHE=/app/compile-cache
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The SQLite file lives here (STORE_URL defaults to ./data/cometchat-ops.sqlite): mount a volume.
RUN mkdir -p /app/data /app/compile-cache && chown node:node /app/data /app/compile-cache
VOLUME ["/app/data"]
USER node
# Node keeps a cache per user and V8 flags: it is filled as the user and with the node options
# of the CMD below (keep the two alike: `npm run test:recipe` fails when a start misses it).
RUN node --v8-pool-size=1 --max-semi-space-size=8 --max-old-space-size=160 dist/app.mjs --fill-compile-cache
EXPOSE 3000
# Ready, not merely alive: the Socket Mode connection is open and the store answers. It asks
# METRICS_PORT when set (health routes move there), else PORT.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "dist/healthcheck.js"]
# node is PID 1 and handles SIGTERM itself: it stops taking requests, finishes in-flight work
# within SHUTDOWN_GRACE_MS, closes the socket and the store, and exits 0.
STOPSIGNAL SIGTERM
# Node's options, the same for `npm start` and every subject of `npm run bench`:
# --v8-pool-size=1: V8 starts four helper threads whatever the machine has; on the one or two
#   vCPUs this app is sized for they fight the main thread over the cores (BENCHMARKS.md). With
#   more cores, give it their number less one.
# --max-semi-space-size=8: V8 sizes its young generation from the memory it sees. Unlimited, it
#   grows it to 110-128 MiB at this app's allocation rate and keeps it; inside a 256 MiB container
#   limit it shrinks it to 2 MiB, and the app then spends its time in the collector (ten times
#   as many scavenges; acknowledgements took seconds at 200 commands a second). Fixed at 8 MiB
#   a semi-space, it behaves the same with or without a limit.
# --max-old-space-size=160: within a limit V8 would allow the old generation the whole limit;
#   with the young generation and what is not heap (code, buffers, SQLite) 160 fits 256 MiB.
CMD ["node", "--v8-pool-size=1", "--max-semi-space-size=8", "--max-old-space-size=160", "dist/app.mjs"]
