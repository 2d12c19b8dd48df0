# syntax=docker/dockerfile:1
# Build stage: every dependency (better-sqlite3 compiles here; the workspaces' `prepare` builds the SDK and
# the ticker), then the server and the board, then production dependencies only.
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json ./
COPY clients ./clients
RUN npm ci --no-audit --no-fund
COPY tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: the compiled server and board (dist/, with the simulator's data), production node_modules
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
