/**
 * JSON records as documents: a JSON array or JSON Lines file (or a folder of
 * them), each record mapped to an id, a title, a text, a URL and examples by
 * dotted paths (`--map 'id=rule.id,title=rule.name,text=description,url=links.0'`).
 *
 * A bad record (missing field, duplicate id, too large, not JSON) is reported
 * with its file, number and field and left out; the others are ingested. A
 * mapping that names a field no record has stops the run: it is a typo.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocsChatError } from '../errors.js';
import type { DocumentSection, ParsedDocument, SectionBlock } from '../markdown/document.js';
import { renderFence } from '../markdown/code-fence.js';
import { indexProfileHashes } from '../profile/index-profile.js';
import type { RetrievalProfile } from '../profile/retrieval-profile.js';
import { PARSING_VERSION, RECORDS_FILE_PREFIX, type SourceEntry, type SourceScanner } from './run-ingest.js';

export interface RecordsSourceSettings {
  /** A `.json` / `.jsonl` / `.ndjson` file, or a folder of them. */
  input: string;
  /** `id=…,title=…,text=…,url=…,examples=…` (dotted paths; id and text required). */
  map: string;
  /** Names the source (`records:<name>`); the input's base name when unset. */
  name?: string;
}

export const RECORD_FIELDS = ['id', 'title', 'text', 'url', 'examples'] as const;
export type RecordField = (typeof RECORD_FIELDS)[number];
export type RecordMapping = Partial<Record<RecordField, string>>;

/** A record above this is almost surely a dump, not a document; it is reported and left out. */
export const MAX_RECORD_BYTES = 1024 * 1024;

const RECORD_EXTENSIONS = new Set(['.json', '.jsonl', '.ndjson']);

export function parseRecordMapping(map: string): RecordMapping {
  const mapping: RecordMapping = {};
  for (const part of map
    .split(',')
    .map((piece) => piece.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)\s*=\s*(\S+)$/.exec(part);
    const key = match?.[1] as RecordField | undefined;
    if (!match || !key || !(RECORD_FIELDS as readonly string[]).includes(key)) {
      throw new DocsChatError(
        'records_invalid',
        `--map entry "${part}" is not one of ${RECORD_FIELDS.map((field) => `${field}=PATH`).join(', ')}.`,
        {
          hint: "Write the mapping as --map 'id=PATH,title=PATH,text=PATH,url=PATH,examples=PATH' with dotted paths into each record (id and text are required).",
        },
      );
    }
    mapping[key] = match[2];
  }
  for (const required of ['id', 'text'] as const) {
    if (!mapping[required]) {
      throw new DocsChatError('records_invalid', `--map does not say where each record's ${required} is.`, {
        hint: `Add ${required}=PATH to --map (for example --map 'id=id,title=title,text=description').`,
      });
    }
  }
  return mapping;
}

/** The value at a dotted path (`a.b.0.c`), or undefined. */
export function valueAt(record: unknown, dottedPath: string): unknown {
  let value: unknown = record;
  for (const segment of dottedPath.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

interface RawRecord {
  /** Where it came from, for messages: `rules.jsonl line 4` or `rules.json record #4`. */
  where: string;
  value: unknown;
  bytes: number;
}

async function listInputFiles(input: string): Promise<string[]> {
  const stat = await fs.stat(input).catch(() => null);
  if (!stat) {
    throw new DocsChatError('records_invalid', `The records input ${input} does not exist.`, {
      hint: 'Pass a .json / .jsonl file or a folder of them with --records.',
    });
  }
  if (stat.isFile()) return [input];
  const files = (await fs.readdir(input, { recursive: true }))
    .map((file) => String(file))
    .filter((file) => RECORD_EXTENSIONS.has(path.extname(file).toLowerCase()))
    .sort();
  if (files.length === 0) {
    throw new DocsChatError('records_invalid', `The folder ${input} holds no .json, .jsonl or .ndjson file.`, {
      hint: 'Pass a folder holding JSON records, or one file, with --records.',
    });
  }
  return files.map((file) => path.join(input, file));
}

/** Reads one file as a JSON array, or else as JSON Lines; per-line errors are reported, not thrown. */
function readRecords(label: string, text: string, failed: { file: string; reason: string }[]): RawRecord[] {
  const trimmed = text.trim();
  let whole: unknown;
  let parsedWhole = false;
  try {
    whole = JSON.parse(trimmed);
    parsedWhole = true;
  } catch {
    // Not one JSON value: JSON Lines, read below.
  }
  if (parsedWhole) {
    if (Array.isArray(whole)) {
      return (whole as unknown[]).map((value, index) => ({
        where: `${label} record #${index + 1}`,
        value,
        bytes: Buffer.byteLength(JSON.stringify(value) ?? ''),
      }));
    }
    // One line holding one object is a JSON Lines file of one record; anything else is not a list of records.
    if (!trimmed.includes('\n') && whole !== null && typeof whole === 'object')
      return [{ where: `${label} line 1`, value: whole, bytes: Buffer.byteLength(trimmed) }];
    throw new DocsChatError(
      'records_invalid',
      `${label} is neither a JSON array of records nor JSON Lines (its top level is ${whole === null ? 'null' : typeof whole}).`,
      {
        hint: 'Give a file whose top level is an array of records, or one JSON object per line (JSON Lines); for records nested in an object, extract the array first (for example with jq).',
      },
    );
  }
  if (trimmed.startsWith('[')) {
    throw new DocsChatError('records_invalid', `${label} starts like a JSON array but is not valid JSON.`, {
      hint: 'Fix the JSON, or write one record per line (JSON Lines).',
    });
  }
  const records: RawRecord[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).trim();
    if (line === '') continue;
    const where = `${label} line ${index + 1}`;
    try {
      records.push({ where, value: JSON.parse(line), bytes: Buffer.byteLength(line) });
    } catch (error) {
      failed.push({ file: where, reason: `not valid JSON (${(error as Error).message}); the record is left out` });
    }
  }
  if (records.length === 0 && trimmed !== '') {
    throw new DocsChatError('records_invalid', `${label} is neither a JSON array nor JSON Lines (no line is a JSON record).`, {
      hint: 'Give a file whose top level is an array of records, or a .jsonl file with one JSON object per line.',
    });
  }
  return records;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map((item) => `- ${asText(item).replace(/\n/g, '\n  ')}`).join('\n');
  return JSON.stringify(value, null, 2);
}

function textBlocks(value: unknown): SectionBlock[] {
  if (Array.isArray(value)) return [{ kind: 'list', text: asText(value) }];
  if (value !== null && typeof value === 'object') {
    const code = JSON.stringify(value, null, 2);
    return [{ kind: 'code', text: renderFence(code, 'json', null), language: 'json', meta: null, code }];
  }
  return asText(value)
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => ({ kind: 'text' as const, text: paragraph }));
}

/** Each example stays whole: short text as a paragraph, longer or structured ones as a code block. */
function exampleBlocks(value: unknown): SectionBlock[] {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item): SectionBlock => {
    if (typeof item === 'string' && !item.includes('\n')) return { kind: 'text', text: item };
    const code = typeof item === 'string' ? item : JSON.stringify(item, null, 2);
    const language = typeof item === 'string' ? null : 'json';
    return { kind: 'code', text: renderFence(code, language, null), language, meta: null, code };
  });
}

function largestField(record: unknown, mapping: RecordMapping): string {
  let best: { field: string; size: number } = { field: 'the record itself', size: 0 };
  for (const [field, dotted] of Object.entries(mapping)) {
    const size = Buffer.byteLength(JSON.stringify(valueAt(record, dotted)) ?? '');
    if (size > best.size) best = { field: `${field} (${dotted})`, size };
  }
  return best.field;
}

/** The scanner for `ingest --records`; everything it owns is keyed `records:<name>/<id>`. */
export async function recordsScanner(settings: RecordsSourceSettings, profile: RetrievalProfile): Promise<SourceScanner> {
  const mapping = parseRecordMapping(settings.map);
  const input = path.resolve(settings.input);
  const name =
    (settings.name ?? path.basename(input).replace(/\.(jsonl|ndjson|json)$/i, '')).replace(/[^A-Za-z0-9_.-]+/g, '-') || 'records';
  const source = `records:${name}`;
  const prefix = `${RECORDS_FILE_PREFIX}${name}/`;
  const hashes = indexProfileHashes(profile);
  const fingerprint = sha256(
    `${PARSING_VERSION}\0${hashes.chunking}\0${hashes.sparse}\0${hashes.dense}\0${source}\0${JSON.stringify(mapping)}`,
  );

  return {
    fingerprint,
    scan: async () => {
      const failed: { file: string; reason: string }[] = [];
      const raw: RawRecord[] = [];
      for (const file of await listInputFiles(input)) {
        const label = path.relative(path.dirname(input), file) || path.basename(file);
        raw.push(...readRecords(label, await fs.readFile(file, 'utf8'), failed));
      }
      // A mapped path that no record has is a typo in --map, not bad data.
      for (const [field, dotted] of Object.entries(mapping)) {
        if (raw.length > 0 && !raw.some((record) => valueAt(record.value, dotted) !== undefined)) {
          throw new DocsChatError(
            'records_invalid',
            `--map says ${field}=${dotted}, but none of the ${raw.length} records has a field "${dotted}".`,
            {
              hint: `Check the spelling of "${dotted}" against a record (dotted paths such as meta.title or links.0), or drop ${field}= from --map.`,
            },
          );
        }
      }
      const entries: SourceEntry[] = [];
      const firstById = new Map<string, string>();
      for (const record of raw) {
        const rawId = valueAt(record.value, mapping.id as string);
        const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId).trim() : '';
        const key = id ? `${prefix}${id}` : `${prefix}#${record.where}`;
        const fail = (reason: string) => failed.push({ file: `${record.where}${id ? ` (id ${id})` : ''}`, reason });
        if (record.value === null || typeof record.value !== 'object' || Array.isArray(record.value)) {
          fail('is not a JSON object; the record is left out');
          continue;
        }
        if (!id) {
          fail(`has no usable id at "${mapping.id}" (a string or number is needed); the record is left out`);
          continue;
        }
        if (record.bytes > MAX_RECORD_BYTES) {
          fail(
            `is ${(record.bytes / (1024 * 1024)).toFixed(1)} MB, most of it in ${largestField(record.value, mapping)}; a record may hold at most ${MAX_RECORD_BYTES / (1024 * 1024)} MB. Split it into several records; it is left out`,
          );
          continue;
        }
        const first = firstById.get(id);
        if (first) {
          fail(`repeats id "${id}" of ${first}; ids must be unique, so this one is left out`);
          continue;
        }
        firstById.set(id, record.where);
        const text = valueAt(record.value, mapping.text as string);
        if (text === undefined || text === null || (typeof text === 'string' && text.trim() === '')) {
          fail(`has no text at "${mapping.text}"; the record is left out`);
          continue;
        }
        const titleValue = mapping.title ? valueAt(record.value, mapping.title) : undefined;
        const title = typeof titleValue === 'string' && titleValue.trim() ? titleValue.trim() : id;
        const urlValue = mapping.url ? valueAt(record.value, mapping.url) : undefined;
        const url = typeof urlValue === 'string' ? urlValue.trim() : '';
        const examples = mapping.examples ? valueAt(record.value, mapping.examples) : undefined;
        const mapped = { id, title, text, url, examples: examples ?? null };
        entries.push({
          file: key,
          fileHash: sha256(`${fingerprint}\0${JSON.stringify(mapped)}`),
          parse: () => recordDocument(key, source, mapped),
        });
      }
      return {
        label: `records ${input} (${source})`,
        total: raw.length + failed.filter((entry) => / line \d+$/.test(entry.file)).length,
        entries,
        skipped: [],
        failed,
        owns: (file) => file.startsWith(prefix),
      };
    },
  };
}

function recordDocument(
  file: string,
  source: string,
  record: { id: string; title: string; text: unknown; url: string; examples: unknown },
): ParsedDocument {
  const sections: DocumentSection[] = [{ headingPath: [record.title], depth: 1, anchor: null, blocks: textBlocks(record.text) }];
  if (record.examples !== null && record.examples !== undefined && !(Array.isArray(record.examples) && record.examples.length === 0)) {
    // Examples are a section of the record, so a hit on one cites the record itself.
    sections.push({ headingPath: [record.title, 'Examples'], depth: 2, anchor: null, blocks: exampleBlocks(record.examples) });
  }
  return { file, docId: record.id, title: record.title, url: record.url, frontMatter: {}, sections, usedFallbackParser: false, source };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
