# syntax=docker/dockerfile:1
# Build stage. The manifests come first, so `npm ci` (better-sqlite3 compiles there) is cached until a
# dependency changes, not on every source or board edit; install scripts run only for the two packages that
# need theirs (the workspaces are built below, from their sources). Then the server, the SDK, the ticker and
# the board; then production dependencies only, and better-sqlite3 down to the addon it loads (its C sources
# and object files are ~26 MB the runtime never reads).
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY clients/js/package.json ./clients/js/
COPY clients/cli/package.json ./clients/cli/
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY tsconfig.json tsconfig.build.json ./
COPY clients ./clients
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm run build -w racewire-tail && npm prune --omit=dev --no-audit --no-fund
RUN cd node_modules/better-sqlite3 && mv build/Release/better_sqlite3.node . && rm -rf build deps src \
  && mkdir -p build/Release && mv better_sqlite3.node build/Release/

# Runtime stage: the compiled server and board (dist/, with the simulator's data and the Redis Lua scripts), production node_modules
# and the two workspace packages they link to (built JavaScript only). No sources, no compilers, non-root.
FROM node:22-bookworm-slim
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/clients/js/package.json ./clients/js/
COPY --from=build /app/clients/js/dist ./clients/js/dist
COPY --from=build /app/clients/cli/package.json ./clients/cli/
COPY --from=build /app/clients/cli/dist ./clients/cli/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
