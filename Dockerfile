# Simgate's image: the release `npm run package` makes (dist/simgate), on Node 20 alone.
# docker build -t simgate .   ·   compose.yaml runs it with PostgreSQL and a worker.

FROM node:20-slim AS build
ENV NEXT_TELEMETRY_DISABLED=1
WORKDIR /src
# The dependencies first, so that a change of the code alone reuses this layer. patch-package
# (postinstall) applies patches/.
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run package

FROM node:20-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# The release alone: no source, no build tools, no npm install.
COPY --from=build --chown=root:root /src/dist/simgate /app
# The embedded database (local mode) and its generated secret live here; unused on PostgreSQL.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
# start.mjs drains requests in flight and closes the database on SIGTERM (docs/operating.md).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "start.mjs"]
