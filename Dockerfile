# syntax=docker/dockerfile:1
# Build stage: install with dev dependencies (native better-sqlite3 builds here), then prune to production.
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY clients/js/package.json ./clients/js/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY clients ./clients
RUN npm run build && npm prune --omit=dev

# Runtime stage: no compilers, non-root, data in a volume.
FROM node:22-bookworm-slim
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/clients ./clients
# The board is bundled at start-up from clients/web, which imports the protocol types from src/.
COPY --from=build /app/src ./src
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]
