# syntax=docker/dockerfile:1
# Till in a container: compiled JavaScript on Node.js 20, production dependencies only, run as the
# unprivileged `node` user. docs/operations.md, "Run it in a container", says how to use it; compose.yaml runs
# it beside PostgreSQL. test/server/container.test.ts checks that what the runtime stage copies
# exists and that `npm ci --omit=dev` installs everything it imports.
#
#   docker build -t till .
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://… till

ARG NODE_IMAGE=node:20-bookworm-slim

# Production dependencies only: what the runtime stage gets as node_modules.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/package.json
COPY conformance/package.json conformance/package.json
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Every dependency, to compile the server (server/ → dist/server/) and the merchant command
# (scripts/merchant.ts → dist/scripts/merchant.js, which imports ../server/…, so dist/server/…).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/package.json
COPY conformance/package.json conformance/package.json
RUN npm ci --no-audit --no-fund
COPY scripts/build.mjs scripts/build-state.mjs scripts/server-bundle.mjs scripts/merchant.ts scripts/
COPY server server
RUN npm run build \
 && npx esbuild scripts/merchant.ts --outdir=dist/scripts --format=esm --platform=node --target=node20 --sourcemap=linked --log-level=warning

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    TILL_DATA_DIR=/data
WORKDIR /app
COPY package.json ./
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
# Read at run time, from the project root (server/shared/project-root.ts): the contracts for request
# validation, the hosted pages' stylesheet, and the browser scripts (web/ and the SDK inside them),
# which the server bundles with esbuild on their first request.
COPY generated/checkout.openapi.json generated/commerce.openapi.json generated/
COPY server/pages/kit/page.css server/pages/kit/
COPY server/pages/dashboard/dashboard.css server/pages/dashboard/
COPY web web
COPY sdk/package.json sdk/
COPY sdk/src sdk/src
# The embedded database (PGlite, when DATABASE_URL is unset) and the demo merchant's keys live in
# /data, writable by `node`: mount a volume there to keep them past the container.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node itself is the container's first process: SIGTERM (docker stop) reaches the server, which
# shuts down gracefully (npm would not pass it on).
CMD ["node", "dist/server/main.js"]
