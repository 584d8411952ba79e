# The images of both services, one file with a target each. Build from the repository root:
#   docker build --target telemetry-relay --build-arg RELEASE=1.2.3 --build-arg REVISION=$(git rev-parse HEAD) -t telemetry-relay .
#   docker build --target web --build-arg RELEASE=1.2.3 --build-arg REVISION=$(git rev-parse HEAD) -t web .
# Works with the legacy builder and BuildKit 0.8 (Docker 20.10): no heredocs, no COPY --link, no # syntax line.
# The base image is built locally (scripts/machine/make-base-image.sh); nothing is pulled.
# Stage order matters to the legacy builder, which builds every stage before the target: the shared stages, then the
# relay's (cheap), then the web's. So the relay builds nothing of the web; BuildKit builds only what a target needs.
ARG NODE_IMAGE=node:24-bookworm-slim

# === shared ======================================================================================================

# --- manifests: what npm ci needs (every workspace manifest: npm checks the whole tree against the lockfile) -------
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
# ci-ca.pe[m]: the proxy's CA bundle when CI provides one (the glob matches nothing otherwise); build stages only.
COPY package.json package-lock.json ci-ca.pe[m] ./
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/telemetry-rules/package.json packages/telemetry-rules/
COPY packages/test-kit/package.json packages/test-kit/
COPY services/telemetry-relay/package.json services/telemetry-relay/
COPY services/web/package.json services/web/
COPY e2e/package.json e2e/
COPY scripts/image/production-deps.sh /usr/local/bin/

# --- rootfs: the smallest filesystem Node runs on (node binary, the glibc/libstdc++ it links, users) -------------
FROM ${NODE_IMAGE} AS rootfs
RUN mkdir -p /rootfs/usr/local/bin /rootfs/etc /rootfs/tmp \
 && chmod 1777 /rootfs/tmp \
 && cp /usr/local/bin/node /rootfs/usr/local/bin/ \
 && ldd /usr/local/bin/node | grep -o '/[^ ]*' | xargs -I{} cp --parents -L {} /rootfs/ \
 && grep -E '^(root|nobody|node):' /etc/passwd > /rootfs/etc/passwd \
 && grep -E '^(root|nogroup|node):' /etc/group > /rootfs/etc/group \
 && cp /etc/nsswitch.conf /rootfs/etc/

# --- runtime: no shell, no npm, no package manager; runs as uid 1000; root filesystem may be read-only -----------
FROM scratch AS runtime
COPY --from=rootfs /rootfs/ /
ENV NODE_ENV=production PATH=/usr/local/bin HOST=0.0.0.0
USER 1000:1000
# node is PID 1: it has no default signal dispositions, but the services install SIGTERM/SIGINT handlers
# (graceful shutdown), and they start no child processes, so there is nothing to reap and no init is needed.
ENTRYPOINT ["/usr/local/bin/node"]
# The commit the image is built from (git rev-parse HEAD); VERSION is package.json's; RELEASE names the build in
# Sentry and build info (npm run release passes <service>@<version>+<commit>; the web's source maps go under it).
# Last, so that a new release reuses the layers above.
ARG RELEASE=dev
ARG REVISION=unknown
ARG VERSION=dev
ARG SOURCE=https://github.com/example/ssr-telemetry
LABEL org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      io.sentry.release="${RELEASE}"

# === telemetry relay =============================================================================================

# --- relay-deps: production dependencies of the relay and the shared packages (the image ships their sources) ----
FROM manifests AS relay-deps
RUN if [ -f ci-ca.pem ]; then export NODE_EXTRA_CA_CERTS=/app/ci-ca.pem; fi \
 && production-deps.sh @app/telemetry-relay @app/service-kit @app/telemetry-rules \
 && rm -f ci-ca.pem && mkdir -p /spool

FROM runtime AS telemetry-relay
ARG RELEASE=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="telemetry-relay" \
      org.opencontainers.image.description="Sentry envelope relay behind the tunnel path: authorize, filter, forward, spool"
COPY --from=relay-deps --chown=1000:1000 /spool /var/lib/telemetry-relay/spool
COPY --from=relay-deps --chown=1000:1000 /app /app
COPY --chown=1000:1000 packages/service-kit/src /app/packages/service-kit/src
COPY --chown=1000:1000 packages/telemetry-rules/src /app/packages/telemetry-rules/src
COPY --chown=1000:1000 services/telemetry-relay/src /app/services/telemetry-relay/src
# Memory at full load (bench/run.ts, peak RSS): V8's young generation fixed at 8 MiB semi-spaces instead of 32 MiB
# on a large host or ≈ 2.25 MiB in a 256 MiB pod (10x the scavenges; docs/decisions/022), and one malloc arena (the
# relay's work is on one thread; per-thread arenas kept freed socket buffers resident): ≈ 30 MB less RSS for no measurable throughput cost. V8's old space gets 30 % of the
# container's memory limit: the memory budget for buffers outside the heap takes another 30 % by default (docs/decisions/
# 003-memory-budget.md), the rest is code, SQLite, sockets and the young generation. A fixed mmap threshold: glibc would
# otherwise raise it to the size of the last large buffer freed, and keep later 20 MiB bodies resident after use.
ENV MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=262144 RELEASE=${RELEASE} REVISION=${REVISION} \
    PORT=3001 SPOOL_DIR=/var/lib/telemetry-relay/spool
WORKDIR /app/services/telemetry-relay
EXPOSE 3001 9464
# Two V8 helper threads, not four: on the pod's one CPU they competed with the main thread for it (decision 043).
ENTRYPOINT ["/usr/local/bin/node", "--max-semi-space-size=8", "--max-old-space-size-percentage=30", "--v8-pool-size=2"]
CMD ["src/main.ts"]

# === web =========================================================================================================

# --- web-build: the Vite client and server bundles (needs the devDependencies) -----------------------------------
FROM manifests AS web-build
RUN if [ -f ci-ca.pem ]; then export NODE_EXTRA_CA_CERTS=/app/ci-ca.pem; fi \
 && npm ci --workspace @app/web --workspace @app/service-kit --workspace @app/telemetry-rules --no-audit --no-fund --loglevel=error \
 && rm -f ci-ca.pem && rm -rf /root/.npm
# Vite's TypeScript transform reads the tsconfig chain (services/web/tsconfig.json extends the base).
COPY tsconfig.base.json ./
COPY packages/service-kit packages/service-kit
COPY packages/telemetry-rules packages/telemetry-rules
COPY services/web services/web
# The release is not baked into the bundles (the server injects it), so a new release reuses this layer's cache.
# Chunks carry Sentry Debug IDs; their source maps land in dist/sourcemaps, which never reaches the runtime stage.
RUN npm run build --workspace @app/web

# --- web-sourcemaps: the client's source maps (with a copy of each chunk) as a build artifact for the release step --
#   docker build --target web-sourcemaps -o type=local,dest=services/web/dist .   (BuildKit; the release step copies)
#   then: npm run release:sourcemaps   (uploads services/web/dist/sourcemaps)
FROM scratch AS web-sourcemaps
COPY --from=web-build /app/services/web/dist/sourcemaps /sourcemaps

# --- web-deps: production dependencies of the web and the shared packages ----------------------------------------
# Also removed: the build-time half of @sentry/node 11 (its bundler plugins `@sentry/node/vite` etc. pull in the
# Sentry CLI binary and an oxc parser, 34 MB; the server imports only `@sentry/node`): sizes in docs/deploy.md; the
# container suites prove the server still starts and reports.
FROM manifests AS web-deps
RUN if [ -f ci-ca.pem ]; then export NODE_EXTRA_CA_CERTS=/app/ci-ca.pem; fi \
 && production-deps.sh @app/web @app/service-kit @app/telemetry-rules \
 && rm -f ci-ca.pem \
 && rm -rf node_modules/@sentry/bundler-plugins node_modules/sentry node_modules/oxc-parser node_modules/@oxc-parser

FROM runtime AS web
ARG RELEASE=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="web" \
      org.opencontainers.image.description="Server-rendered React web service (React Router data mode on Fastify)"
COPY --from=web-deps --chown=1000:1000 /app /app
COPY --chown=1000:1000 packages/service-kit/src /app/packages/service-kit/src
COPY --chown=1000:1000 packages/telemetry-rules/src /app/packages/telemetry-rules/src
# client and server only: the source maps stay in the build stage (see the web-sourcemaps stage).
COPY --from=web-build --chown=1000:1000 /app/services/web/dist/client /app/services/web/dist/client
COPY --from=web-build --chown=1000:1000 /app/services/web/dist/server /app/services/web/dist/server
ENV PORT=3000 SENTRY_RELEASE=${RELEASE} REVISION=${REVISION}
WORKDIR /app/services/web
EXPOSE 3000 9464
# Sentry's Node SDK must load before Fastify (--import).
CMD ["--import", "./dist/server/instrument.js", "./dist/server/main.js"]
