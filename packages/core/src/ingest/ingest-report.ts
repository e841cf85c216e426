import type { ScopeFit } from '../search/scope-fit.js';
import type { SiteSummary } from './site-layout.js';

/** What an ingest did, printed by the CLI and returned by `POST /admin/ingest`. */
export interface IngestReport {
  /** The docs folder, or the site root of a whole-site ingest. */
  docsDir: string;
  /** What a whole-site ingest found: versions per instance, locales. */
  site?: SiteSummary;
  dryRun: boolean;
  rebuild: boolean;
  embedder: { provider: string; model: string; dimensions: number };
  store: { backend: string; collection: string };
  files: {
    total: number;
    added: number;
    modified: number;
    deleted: number;
    unchanged: number;
    /** Files that are not pages, or cannot be read as text (binary, not UTF-8). */
    skipped: { file: string; reason: string }[];
    /** Readable files whose processing failed. */
    failed: { file: string; reason: string }[];
    /** Files that needed the tolerant markdown parse because MDX could not parse them. */
    fallbackParsed: string[];
  };
  chunks: { added: number; updated: number; deleted: number; unchanged: number; total: number };
  embedding: { calls: number; texts: number; cacheHits: number };
  /** For an ingest from git: the repository and the commits compared. */
  git?: GitRange;
  /** The out-of-scope thresholds fitted on this index, when the run re-fitted them. */
  scopeFit?: ScopeFit;
  durationMs: number;
}

export interface GitRange {
  url: string;
  ref: string | null;
  path: string | null;
  /** The commit the index was last built from, or null on a first run. */
  from: string | null;
  to: string;
  /**
   * `delta`: only files changed between the commits were read; `full`: every file was compared by content
   * hash (first run, force-push, changed settings); `unchanged`: same commit as last time.
   */
  mode: 'delta' | 'full' | 'unchanged';
  /** Why a full comparison was needed, when it was. */
  reason?: string;
  /** Files (under the synced path) git reports as added, modified, renamed or deleted, in delta mode. */
  changedFiles?: number;
}

export interface IngestProgress {
  phase: 'fetch' | 'scan' | 'parse' | 'embed' | 'write' | 'fit' | 'done';
  done: number;
  total: number;
}

/** A short human summary, one fact per line. */
export function formatIngestReport(report: IngestReport): string {
  const lines = [
    `${report.dryRun ? 'Dry run: nothing was written. ' : ''}Ingested ${report.docsDir} into ${report.store.backend} (${report.store.collection}) with ${report.embedder.provider}/${report.embedder.model} (${report.embedder.dimensions} dims).`,
    `Files: ${report.files.total} processed — ${report.files.added} added, ${report.files.modified} modified, ${report.files.deleted} deleted, ${report.files.unchanged} unchanged, ${report.files.skipped.length} skipped, ${report.files.failed.length} failed.`,
    `Chunks: ${report.chunks.added} added, ${report.chunks.updated} updated, ${report.chunks.deleted} deleted, ${report.chunks.unchanged} unchanged (${report.chunks.total} in the index).`,
    `Embedding calls: ${report.embedding.calls} (${report.embedding.texts} texts embedded, ${report.embedding.cacheHits} from cache).`,
    `Duration: ${(report.durationMs / 1000).toFixed(2)} s.`,
  ];
  if (report.git) {
    const git = report.git;
    const short = (commit: string) => commit.slice(0, 12);
    const range = git.from ? `${short(git.from)}..${short(git.to)}` : `(first run)..${short(git.to)}`;
    const how =
      git.mode === 'delta'
        ? `only the ${git.changedFiles ?? 0} file(s) changed between them were read`
        : git.mode === 'unchanged'
          ? 'same commit as last time'
          : `every file compared by content hash${git.reason ? ` (${git.reason})` : ''}`;
    lines.splice(
      1,
      0,
      `Git: ${git.url}${git.ref ? ` @ ${git.ref}` : ''}${git.path ? ` (path ${git.path})` : ''}, commits ${range}: ${how}.`,
    );
  }
  if (report.site) {
    const versions = report.site.versions.map(
      (version) => `${version.instance === 'default' ? '' : `${version.instance}:`}${version.name}${version.last ? ' (last)' : ''}`,
    );
    lines.push(`Site: versions ${versions.join(', ')}; locales ${report.site.locales.join(', ')} (default ${report.site.defaultLocale}).`);
  }
  if (report.scopeFit) {
    const fit = report.scopeFit;
    lines.push(
      `Out-of-scope thresholds fitted on this index: vocabulary ${fit.minVocabulary}, evidence ${fit.minEvidence}, dense ${fit.minDense} ` +
        `(refuse ${fit.offTopicRefused} of ${fit.fittedOn.offTopic} off-topic questions, keep ${fit.pseudoKept} of ${fit.fittedOn.pseudoQuestions} made from the docs).`,
    );
  }
  for (const skipped of report.files.skipped) lines.push(`  skipped ${skipped.file}: ${skipped.reason}`);
  for (const failed of report.files.failed) lines.push(`  FAILED ${failed.file}: ${failed.reason}`);
  if (report.files.fallbackParsed.length > 0) {
    lines.push(
      `  ${report.files.fallbackParsed.length} file(s) were not valid MDX and were read as plain markdown: ${report.files.fallbackParsed.join(', ')}`,
    );
  }
  return lines.join('\n');
}
