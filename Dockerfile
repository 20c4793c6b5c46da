# syntax=docker/dockerfile:1
# pubmed-mcp over HTTP. Build: docker build -t pubmed-mcp .   Run: see docs/http-and-container.md
# The production-install test (__tests__/container) reproduces what these stages do, without Docker.
ARG NODE_VERSION=22

# 1. Compile TypeScript with the full (dev) dependency set.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are copied in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# The demo's synthetic NCBI (dist/devtools) is not part of the server; the npm package leaves it out too.
RUN npm run build && rm -rf dist/devtools

# 2. Production dependencies only, at the locked versions: no dev dependencies and no peers, so no
#    TypeScript (a peer of the Qdrant client, never loaded at run time). See the script for why
#    `npm ci --omit=dev` alone is not enough.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/install-production.sh ./scripts/
RUN sh scripts/install-production.sh && npm cache clean --force

# 3. Runtime: compiled code + production dependencies, as the unprivileged `node` user.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    MCP_TRANSPORT=http \
    MCP_HTTP_HOST=0.0.0.0 \
    MCP_HTTP_PORT=3000 \
    PUBMED_MCP_DATA_DIR=/data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY package.json ./
# The embedded store (used when DATABASE_URL is unset) lives in /data; everything else is read-only.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# Liveness only (/health has no dependencies); orchestrators should route on /readyz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MCP_HTTP_PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js", "serve", "--http"]
