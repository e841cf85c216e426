/** `docs-chat ingest`: incremental indexing with a progress bar and a final report. */
import { parseArgs } from 'node:util';
import path from 'node:path';
import {
  formatIngestReport,
  isDocsChatError,
  loadCoreConfig,
  readSiteLayout,
  runGitIngest,
  runIngest,
  runRecordsIngest,
  type IngestProgress,
} from '@docs-chat/core';
import { configuredSiteFlags, siteOptionsFrom, type SiteFlags } from './site-options.js';

const PHASE_LABELS: Record<IngestProgress['phase'], string> = {
  fetch: 'Fetching',
  scan: 'Reading ',
  parse: 'Chunking',
  embed: 'Embedding',
  write: 'Writing ',
  fit: 'Fitting ',
  done: 'Done    ',
};

function progressBar(stream: NodeJS.WriteStream): (progress: IngestProgress) => void {
  let last = 0;
  return (progress) => {
    const now = Date.now();
    if (progress.phase !== 'done' && now - last < 80) return;
    last = now;
    const width = 30;
    const ratio = progress.total === 0 ? 1 : Math.min(1, progress.done / progress.total);
    const filled = Math.round(ratio * width);
    stream.write(
      `\r${PHASE_LABELS[progress.phase]} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${progress.done}/${progress.total}   `,
    );
    if (progress.phase === 'done') stream.write('\n');
  };
}

/**
 * Progress for a log or a pipe (CI, docker logs): one plain line when a phase
 * starts and at every quarter of a long phase, instead of a redrawn bar.
 */
function progressLines(stream: NodeJS.WritableStream): (progress: IngestProgress) => void {
  let phase: IngestProgress['phase'] | null = null;
  let quarter = 0;
  return (progress) => {
    if (progress.phase !== phase) {
      phase = progress.phase;
      quarter = 0;
      if (phase !== 'done') stream.write(`${PHASE_LABELS[phase].trim()} ${progress.done}/${progress.total}\n`);
      return;
    }
    if (progress.total < 100) return;
    const reached = Math.floor((4 * progress.done) / progress.total);
    if (reached > quarter && reached < 4) {
      quarter = reached;
      stream.write(`${PHASE_LABELS[phase].trim()} ${progress.done}/${progress.total}\n`);
    }
  };
}

/** Set by ingest-process.ts in the environment of the ingest it runs for a server. */
export const SERVER_INGEST_VARIABLE = 'DOCS_CHAT_SERVER_INGEST';

const USAGE = `Usage: docs-chat ingest [--docs DIR | --site DIR [site options] | --git URL_OR_PATH [--ref REF] [--path SUBDIR] | --records FILE_OR_DIR --map 'id=…,title=…,text=…,url=…,examples=…' [--name NAME]] [--rebuild] [--dry-run] [--json]
Site options (what the site's docusaurus.config sets, when it differs from the defaults):
  --default-locale LOCALE        i18n.defaultLocale (default en)
  --locales en,fr                the locales to index (default: en plus every i18n/<locale> with translations)
  --last-version NAME            lastVersion of the main docs
  --only-versions 2.0,current    onlyIncludeVersions of the main docs
  --version-path NAME=PATH       a version's path option (repeatable)
  --instance ID=FOLDER[:ROUTE]   another docs plugin instance (repeatable)
  --no-blog                      leave the blog out
  --site-config FILE             all of the above as JSON (see the "Versions and locales" guide)
`;

export async function runIngestCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // Run by a server for POST /admin/ingest (ingest-process.ts): the ingest is part of that server and ends
  // with it, as it did on the server's own thread, rather than outliving a server that was killed.
  if (env[SERVER_INGEST_VARIABLE] === '1' && process.connected) {
    process.once('disconnect', () => process.exit(1));
    // The listener must not keep this process alive once the ingest is done.
    process.channel?.unref();
  }
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        docs: { type: 'string' },
        git: { type: 'string' },
        ref: { type: 'string' },
        path: { type: 'string' },
        records: { type: 'string' },
        map: { type: 'string' },
        name: { type: 'string' },
        site: { type: 'string' },
        'site-config': { type: 'string' },
        'default-locale': { type: 'string' },
        locales: { type: 'string' },
        'last-version': { type: 'string' },
        'only-versions': { type: 'string' },
        'version-path': { type: 'string', multiple: true },
        instance: { type: 'string', multiple: true },
        'no-blog': { type: 'boolean', default: false },
        rebuild: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const sources = [values.docs, values.site, values.git, values.records].filter((value) => value !== undefined).length;
  const problem =
    values.docs !== undefined && values.site !== undefined
      ? '--docs and --site cannot be used together: --docs reads one docs folder, --site a whole Docusaurus site.'
      : sources > 1
        ? 'Give one source per run: --docs, --site, --git or --records.'
        : values.records !== undefined && values.map === undefined
          ? "--records needs --map 'id=PATH,title=PATH,text=PATH,url=PATH' saying where each field is."
          : (values.ref !== undefined || values.path !== undefined) && values.git === undefined
            ? '--ref and --path go with --git URL_OR_PATH.'
            : (values.map !== undefined || values.name !== undefined) && values.records === undefined
              ? '--map and --name go with --records FILE_OR_DIR.'
              : null;
  if (problem) {
    process.stderr.write(`${problem}\n${USAGE}`);
    return 2;
  }
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const config = loadCoreConfig(env);
    const onProgress = values.json
      ? undefined
      : process.stderr.isTTY === true
        ? progressBar(process.stderr)
        : progressLines(process.stderr);
    const common = {
      rebuild: values.rebuild ?? false,
      dryRun: values['dry-run'] ?? false,
      signal: controller.signal,
      ...(onProgress ? { onProgress } : {}),
    };
    const report =
      values.git !== undefined
        ? await runGitIngest(config, {
            ...common,
            git: { url: values.git, ref: values.ref ?? config.git?.ref, path: values.path ?? config.git?.path },
          })
        : values.records !== undefined
          ? await runRecordsIngest(config, {
              ...common,
              input: values.records,
              map: values.map as string,
              ...(values.name ? { name: values.name } : {}),
            })
          : await runIngest(config, {
              ...common,
              // DOCS_SITE_DIR makes the whole site the default source; --docs still reads one folder.
              ...(values.site !== undefined
                ? { site: await readSiteLayout(await siteOptionsFrom(values as SiteFlags)) }
                : values.docs === undefined && config.site
                  ? { site: await readSiteLayout(await siteOptionsFrom(configuredSiteFlags(config.site, values))) }
                  : {}),
              docsDir: values.docs ? path.resolve(values.docs) : config.docsDir,
            });
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatIngestReport(report)}\n`);
    return report.files.failed.length > 0 ? 1 : 0;
  } catch (error) {
    if (isDocsChatError(error)) {
      if (values.json)
        process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message, hint: error.hint } })}\n`);
      process.stderr.write(`docs-chat ingest: ${error.describe()}\n`);
      return 1;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
