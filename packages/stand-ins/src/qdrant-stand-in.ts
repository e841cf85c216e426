/**
 * A local server speaking Qdrant's REST protocol (as of 1.16) for the
 * endpoints docs-chat uses, so the real `@qdrant/js-client-rest` runs against
 * it. It validates request bodies the way Qdrant does (a malformed request from
 * the adapter fails its tests), really stores points, and scores them with its
 * own implementation of Qdrant's semantics (cosine, sparse dot product with the
 * `idf` modifier, RRF with k = 2), independent of core's embedded store so
 * that the conformance suite compares two implementations.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Error texts as Qdrant words them (see `StorageError` display strings in lib/storage/src/content_manager/errors.rs). */
export const QDRANT_ERROR_MESSAGES = {
  outOfDisk: 'Service internal error: No space left on device: WAL buffer size exceeds available disk space',
  rateLimited: 'Rate limiting exceeded: Write rate limit exceeded, retry later',
  internal: 'Service internal error: stand-in failure',
} as const;

export interface QdrantStandInOptions {
  /** Version reported by `GET /` (default 1.16.3). */
  version?: string;
  /** When set, requests must carry this `api-key` header. */
  apiKey?: string;
}

export interface RecordedQdrantRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export interface QdrantFailure {
  status: number;
  /** Text placed in `status.error`; defaults to a Qdrant-like message for the status. */
  message?: string;
  /** Sent as `Retry-After` (seconds). */
  retryAfterSeconds?: number;
  /** How many following requests fail (default 1). */
  times?: number;
}

export interface QdrantStandIn {
  readonly url: string;
  /** Every request received (bodies parsed), oldest first. */
  readonly requests: RecordedQdrantRequest[];
  /** Makes the next request(s) fail with this status and message. */
  failNext(failure: QdrantFailure): void;
  /** Delays every answer by `ms` milliseconds (0 to stop). */
  setDelay(ms: number): void;
  /** Stops listening: clients then get ECONNREFUSED. */
  setUnreachable(): Promise<void>;
  /** Names of the collections currently held. */
  collectionNames(): string[];
  close(): Promise<void>;
}

interface SparseValue {
  indices: number[];
  values: number[];
}

interface StoredPoint {
  id: string | number;
  dense: Map<string, number[]>;
  sparse: Map<string, SparseValue>;
  payload: Record<string, unknown>;
}

interface CollectionState {
  dense: Map<string, { size: number; distance: string }>;
  sparse: Map<string, { modifier: string }>;
  rawConfig: { vectors: unknown; sparse_vectors: unknown };
  points: Map<string, StoredPoint>;
  payloadSchema: Map<string, string>;
  operationId: number;
}

interface ScoredPoint {
  point: StoredPoint;
  score: number;
}

class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const wrongInput = (message: string) => new BadRequest(400, `Wrong input: ${message}`);
const formatError = (message: string) => new BadRequest(400, `Format error in JSON body: ${message}`);
const validationError = (message: string) => new BadRequest(400, `Validation error in JSON body: [${message}]`);
const notFound = (name: string) => new BadRequest(404, `Not found: Collection \`${name}\` doesn't exist!`);

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const DISTANCES = new Set(['Cosine', 'Dot', 'Euclid', 'Manhattan']);
const RRF_DEFAULT_K = 2;

export async function startQdrantStandIn(options: QdrantStandInOptions = {}): Promise<QdrantStandIn> {
  const version = options.version ?? '1.16.3';
  const collections = new Map<string, CollectionState>();
  const requests: RecordedQdrantRequest[] = [];
  const sockets = new Set<Socket>();
  let pendingFailure: (QdrantFailure & { remaining: number }) | null = null;
  let delayMs = 0;

  const server: Server = createServer((request, response) => {
    void handle(request, response);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const startedAt = process.hrtime.bigint();
    try {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const text = await readBody(request);
      let body: unknown;
      let parseProblem: string | null = null;
      if (text.length > 0) {
        try {
          body = JSON.parse(text);
        } catch (error) {
          parseProblem = error instanceof Error ? error.message : String(error);
        }
      }
      requests.push({ method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), body });
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (options.apiKey !== undefined && request.headers['api-key'] !== options.apiKey) {
        return sendError(response, 401, 'Must provide an API key or an Authorization bearer token', startedAt);
      }
      if (pendingFailure) {
        const failure = pendingFailure;
        failure.remaining -= 1;
        if (failure.remaining <= 0) pendingFailure = null;
        const headers: Record<string, string> = {};
        if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
        return sendError(response, failure.status, failure.message ?? defaultMessage(failure.status), startedAt, headers);
      }
      if (parseProblem) throw formatError(`${parseProblem} at line 1`);
      const result = route(request.method ?? 'GET', url, body);
      if (result.raw) {
        response.writeHead(result.status ?? 200, { 'content-type': result.contentType ?? 'application/json' });
        response.end(typeof result.raw === 'string' ? result.raw : JSON.stringify(result.raw));
        return;
      }
      sendJson(response, 200, { result: result.value, status: 'ok', time: elapsed(startedAt) });
    } catch (error) {
      if (error instanceof BadRequest) return sendError(response, error.status, error.message, startedAt);
      const detail = error instanceof Error ? error.message : String(error);
      return sendError(response, 500, `Service internal error: ${detail}`, startedAt);
    }
  }

  function route(method: string, url: URL, body: unknown): { value?: unknown; raw?: unknown; status?: number; contentType?: string } {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (method === 'GET' && path === '/') {
      return { raw: { title: 'qdrant - vector search engine', version, commit: 'stand-in' } };
    }
    if (method === 'GET' && (path === '/readyz' || path === '/healthz' || path === '/livez')) {
      return { raw: 'all shards are ready', contentType: 'text/plain' };
    }
    if (method === 'GET' && path === '/collections') {
      return { value: { collections: [...collections.keys()].map((name) => ({ name })) } };
    }
    const match = /^\/collections\/([^/]+)(\/.*)?$/.exec(path);
    if (!match) throw new BadRequest(404, `Not found: no route for ${method} ${path}`);
    const name = decodeURIComponent(match[1] as string);
    const rest = match[2] ?? '';
    const wait = url.searchParams.get('wait') === 'true';

    if (rest === '' && method === 'PUT') return { value: createCollection(name, body) };
    if (rest === '' && method === 'DELETE') {
      if (!collections.delete(name)) throw notFound(name);
      return { value: true };
    }
    if (rest === '/exists' && method === 'GET') return { value: { exists: collections.has(name) } };
    const collection = collections.get(name);
    if (!collection) throw notFound(name);
    const update = () => ({ operation_id: ++collection.operationId, status: wait ? 'completed' : 'acknowledged' });

    if (rest === '' && method === 'GET') return { value: collectionInfo(collection) };
    if (rest === '/index' && method === 'PUT') {
      createPayloadIndex(collection, body);
      return { value: update() };
    }
    if (rest === '/points' && method === 'PUT') {
      upsertPoints(collection, body);
      return { value: update() };
    }
    if (rest === '/points' && method === 'POST') return { value: retrievePoints(collection, body) };
    if (rest === '/points/delete' && method === 'POST') {
      deletePoints(collection, body);
      return { value: update() };
    }
    if (rest === '/points/query' && method === 'POST') return { value: { points: runQuery(collection, body, 'body') } };
    if (rest === '/points/query/batch' && method === 'POST') {
      const request = asObject(body, 'body');
      allowOnly(request, ['searches'], 'body');
      if (!Array.isArray(request.searches)) throw formatError('missing field `searches`');
      return { value: request.searches.map((search, i) => ({ points: runQuery(collection, search, `searches[${i}]`) })) };
    }
    if (rest === '/points/scroll' && method === 'POST') return { value: scrollPoints(collection, body) };
    if (rest === '/points/count' && method === 'POST') {
      const request = body === undefined ? {} : asObject(body, 'body');
      allowOnly(request, ['filter', 'exact', 'shard_key'], 'body');
      const filter = request.filter === undefined || request.filter === null ? null : parseFilter(request.filter, 'filter');
      let count = 0;
      for (const point of collection.points.values()) if (!filter || filter(point)) count++;
      return { value: { count } };
    }
    throw new BadRequest(404, `Not found: no route for ${method} ${path}`);
  }

  function createCollection(name: string, body: unknown): boolean {
    if (!/^[A-Za-z0-9_.-]{1,255}$/.test(name))
      throw validationError(`collection_name: collection name "${name}" contains invalid characters`);
    if (collections.has(name)) throw new BadRequest(409, `Wrong input: Collection \`${name}\` already exists!`);
    const request = asObject(body ?? {}, 'body');
    allowOnly(
      request,
      [
        'vectors',
        'sparse_vectors',
        'shard_number',
        'replication_factor',
        'write_consistency_factor',
        'on_disk_payload',
        'hnsw_config',
        'optimizers_config',
        'wal_config',
        'quantization_config',
        'strict_mode_config',
        'sharding_method',
        'metadata',
      ],
      'body',
    );
    const dense = new Map<string, { size: number; distance: string }>();
    if (request.vectors !== undefined) {
      const vectors = asObject(request.vectors, 'vectors');
      const entries = 'size' in vectors ? [['', vectors] as const] : Object.entries(vectors);
      for (const [vectorName, params] of entries) {
        const config = asObject(params, `vectors.${vectorName}`);
        if (!Number.isInteger(config.size) || (config.size as number) < 1)
          throw validationError(`vectors.${vectorName}.size: value ${String(config.size)} invalid, must be 1 or larger`);
        if (!DISTANCES.has(config.distance as string))
          throw formatError(
            `unknown variant \`${String(config.distance)}\`, expected one of \`Cosine\`, \`Euclid\`, \`Dot\`, \`Manhattan\``,
          );
        dense.set(vectorName, { size: config.size as number, distance: config.distance as string });
      }
    }
    const sparse = new Map<string, { modifier: string }>();
    if (request.sparse_vectors !== undefined) {
      for (const [vectorName, params] of Object.entries(asObject(request.sparse_vectors, 'sparse_vectors'))) {
        const config = asObject(params, `sparse_vectors.${vectorName}`);
        allowOnly(config, ['index', 'modifier'], `sparse_vectors.${vectorName}`);
        const modifier = (config.modifier as string | undefined) ?? 'none';
        if (modifier !== 'idf' && modifier !== 'none') throw formatError(`unknown variant \`${modifier}\`, expected \`none\` or \`idf\``);
        if (dense.has(vectorName)) throw wrongInput(`Vector name ${vectorName} is used by both a dense and a sparse vector`);
        sparse.set(vectorName, { modifier });
      }
    }
    collections.set(name, {
      dense,
      sparse,
      rawConfig: { vectors: request.vectors ?? {}, sparse_vectors: request.sparse_vectors },
      points: new Map(),
      payloadSchema: new Map(),
      operationId: 0,
    });
    return true;
  }

  function collectionInfo(collection: CollectionState): unknown {
    const payloadSchema: Record<string, unknown> = {};
    for (const [field, type] of collection.payloadSchema) {
      let points = 0;
      for (const point of collection.points.values()) if (point.payload[field] !== undefined) points++;
      payloadSchema[field] = { data_type: type, params: { type }, points };
    }
    return {
      status: 'green',
      optimizer_status: 'ok',
      indexed_vectors_count: 0,
      points_count: collection.points.size,
      segments_count: 2,
      config: {
        params: {
          vectors: collection.rawConfig.vectors,
          ...(collection.rawConfig.sparse_vectors === undefined ? {} : { sparse_vectors: collection.rawConfig.sparse_vectors }),
          shard_number: 1,
          replication_factor: 1,
          write_consistency_factor: 1,
          on_disk_payload: true,
        },
        hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false },
        optimizer_config: { deleted_threshold: 0.2, vacuum_min_vector_number: 1000, default_segment_number: 0, flush_interval_sec: 5 },
        wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
        quantization_config: null,
        strict_mode_config: { enabled: false },
      },
      payload_schema: payloadSchema,
    };
  }

  function createPayloadIndex(collection: CollectionState, body: unknown): void {
    const request = asObject(body, 'body');
    allowOnly(request, ['field_name', 'field_schema'], 'body');
    if (typeof request.field_name !== 'string' || request.field_name === '') throw formatError('missing field `field_name`');
    const schema =
      typeof request.field_schema === 'object' && request.field_schema !== null
        ? (request.field_schema as { type?: unknown }).type
        : request.field_schema;
    const known = ['keyword', 'integer', 'float', 'geo', 'text', 'bool', 'datetime', 'uuid'];
    if (typeof schema !== 'string' || !known.includes(schema)) throw formatError(`unknown variant \`${String(schema)}\` for field_schema`);
    collection.payloadSchema.set(request.field_name, schema);
  }

  function upsertPoints(collection: CollectionState, body: unknown): void {
    const request = asObject(body, 'body');
    allowOnly(request, ['points', 'shard_key', 'update_filter'], 'body');
    if (!Array.isArray(request.points)) throw formatError('data did not match any variant of untagged enum PointInsertOperations');
    const parsed = request.points.map((raw, i) => parsePoint(collection, raw, `points[${i}]`));
    for (const point of parsed) collection.points.set(pointKey(point.id), point);
  }

  function parsePoint(collection: CollectionState, raw: unknown, where: string): StoredPoint {
    const point = asObject(raw, where);
    allowOnly(point, ['id', 'vector', 'payload'], where);
    const id = parsePointId(point.id, `${where}.id`);
    const dense = new Map<string, number[]>();
    const sparse = new Map<string, SparseValue>();
    const vector = point.vector;
    if (Array.isArray(vector)) {
      const unnamed = collection.dense.get('');
      if (!unnamed) throw wrongInput('Not existing vector name error: ');
      dense.set('', stored(checkDense(vector, unnamed.size, `${where}.vector`), unnamed.distance));
    } else if (vector !== undefined) {
      for (const [vectorName, value] of Object.entries(asObject(vector, `${where}.vector`))) {
        const denseConfig = collection.dense.get(vectorName);
        if (denseConfig) {
          if (!Array.isArray(value)) throw wrongInput(`Conversion between sparse and regular vectors failed for vector ${vectorName}`);
          dense.set(vectorName, stored(checkDense(value, denseConfig.size, `${where}.vector.${vectorName}`), denseConfig.distance));
        } else if (collection.sparse.has(vectorName)) {
          sparse.set(vectorName, checkSparse(value, `${where}.vector.${vectorName}`));
        } else {
          throw wrongInput(`Not existing vector name error: ${vectorName}`);
        }
      }
    }
    const payload = point.payload === undefined || point.payload === null ? {} : asObject(point.payload, `${where}.payload`);
    return { id, dense, sparse, payload: structuredClone(payload) };
  }

  function deletePoints(collection: CollectionState, body: unknown): void {
    const request = asObject(body, 'body');
    allowOnly(request, ['points', 'filter', 'shard_key'], 'body');
    if (Array.isArray(request.points)) {
      request.points.forEach((id, i) => collection.points.delete(pointKey(parsePointId(id, `points[${i}]`))));
    } else if (request.filter !== undefined) {
      const filter = parseFilter(request.filter, 'filter');
      for (const [key, point] of collection.points) if (filter(point)) collection.points.delete(key);
    } else {
      throw formatError('data did not match any variant of untagged enum PointsSelector');
    }
  }

  function retrievePoints(collection: CollectionState, body: unknown): unknown[] {
    const request = asObject(body, 'body');
    allowOnly(request, ['ids', 'with_payload', 'with_vector', 'shard_key'], 'body');
    if (!Array.isArray(request.ids)) throw formatError('missing field `ids`');
    const ids = request.ids.map((id, i) => parsePointId(id, `ids[${i}]`));
    const payloadSelector = parseWithPayload(request.with_payload, true);
    const withVector = parseWithVector(request.with_vector);
    const out: unknown[] = [];
    for (const id of ids) {
      const point = collection.points.get(pointKey(id));
      if (point) out.push(record(point, payloadSelector, withVector));
    }
    return out;
  }

  function scrollPoints(collection: CollectionState, body: unknown): unknown {
    const request = body === undefined ? {} : asObject(body, 'body');
    allowOnly(request, ['filter', 'limit', 'offset', 'with_payload', 'with_vector', 'order_by', 'shard_key'], 'body');
    if (request.order_by !== undefined) throw new BadRequest(400, 'Bad request: the stand-in does not implement order_by');
    const limit = request.limit === undefined || request.limit === null ? 10 : request.limit;
    if (!Number.isInteger(limit) || (limit as number) < 1) throw validationError('limit: value must be 1 or larger');
    const filter = request.filter === undefined || request.filter === null ? null : parseFilter(request.filter, 'filter');
    const payloadSelector = parseWithPayload(request.with_payload, true);
    const withVector = parseWithVector(request.with_vector);
    const sorted = [...collection.points.values()].filter((point) => !filter || filter(point)).sort(compareById);
    let start = 0;
    if (request.offset !== undefined && request.offset !== null) {
      const offset = parsePointId(request.offset, 'offset');
      start = sorted.findIndex((point) => compareIds(point.id, offset) >= 0);
      if (start < 0) start = sorted.length;
    }
    const page = sorted.slice(start, start + (limit as number));
    const next = sorted[start + (limit as number)];
    return { points: page.map((point) => record(point, payloadSelector, withVector)), next_page_offset: next ? next.id : null };
  }

  /** One entry of `/points/query` or of the batch: prefetch, nearest (dense or sparse), or fusion. */
  function runQuery(collection: CollectionState, raw: unknown, where: string): unknown[] {
    const request = asObject(raw, where);
    allowOnly(
      request,
      [
        'prefetch',
        'query',
        'using',
        'filter',
        'params',
        'score_threshold',
        'limit',
        'offset',
        'with_vector',
        'with_payload',
        'lookup_from',
        'shard_key',
      ],
      where,
    );
    const limit = readLimit(request.limit, `${where}.limit`);
    const offset = request.offset === undefined || request.offset === null ? 0 : (request.offset as number);
    const payloadSelector = parseWithPayload(request.with_payload, false);
    const withVector = parseWithVector(request.with_vector);
    const scored = scoreQuery(collection, request, where, limit + offset);
    return scored
      .slice(offset, offset + limit)
      .map(({ point, score }) => ({ ...record(point, payloadSelector, withVector), version: 0, score }));
  }

  function scoreQuery(collection: CollectionState, request: Record<string, unknown>, where: string, limit: number): ScoredPoint[] {
    const filter = request.filter === undefined || request.filter === null ? null : parseFilter(request.filter, `${where}.filter`);
    const prefetches =
      request.prefetch === undefined || request.prefetch === null
        ? []
        : Array.isArray(request.prefetch)
          ? request.prefetch
          : [request.prefetch];
    const query = request.query;
    const threshold = typeof request.score_threshold === 'number' ? request.score_threshold : null;

    const fusion = readFusion(query, `${where}.query`);
    if (fusion) {
      if (prefetches.length === 0) throw new BadRequest(400, 'Bad request: Fusion queries require at least one prefetch');
      const lists = prefetches.map((prefetch, i) => {
        const sub = asObject(prefetch, `${where}.prefetch[${i}]`);
        const subLimit = readLimit(sub.limit, `${where}.prefetch[${i}].limit`);
        // docs-chat relies on every prefetch fetching at least as many candidates as the fused answer returns.
        if (subLimit < limit) {
          throw validationError(
            `${where}.prefetch[${i}].limit: prefetch limit (${subLimit}) must be no smaller than the main limit (${limit})`,
          );
        }
        return scoreQuery(collection, sub, `${where}.prefetch[${i}]`, subLimit);
      });
      const fused = new Map<string, ScoredPoint>();
      for (const list of lists) {
        list.forEach(({ point }, position) => {
          const key = pointKey(point.id);
          const contribution = 1 / (position + fusion.k);
          const existing = fused.get(key);
          if (existing) existing.score += contribution;
          else fused.set(key, { point, score: contribution });
        });
      }
      return [...fused.values()]
        .filter(({ point, score }) => (!filter || filter(point)) && (threshold === null || score >= threshold))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
    }
    if (prefetches.length > 0) throw new BadRequest(400, 'Bad request: the stand-in only implements prefetch together with fusion');
    if (query === undefined || query === null) {
      return [...collection.points.values()]
        .filter((point) => !filter || filter(point))
        .sort(compareById)
        .slice(0, limit)
        .map((point) => ({ point, score: 0 }));
    }
    const nearest = typeof query === 'object' && !Array.isArray(query) && 'nearest' in query ? query.nearest : query;
    const using = request.using === undefined || request.using === null ? '' : request.using;
    if (typeof using !== 'string') throw formatError(`${where}.using: invalid type, expected a string`);
    const candidates = [...collection.points.values()].filter((point) => !filter || filter(point));
    let scored: ScoredPoint[];
    if (Array.isArray(nearest)) {
      const config = collection.dense.get(using);
      if (!config) throw wrongInput(`Not existing vector name error: ${using}`);
      const target = checkDense(nearest, config.size, `${where}.query`);
      scored = denseScores(candidates, using, target, config.distance);
    } else if (typeof nearest === 'object' && nearest !== null && 'indices' in nearest) {
      const config = collection.sparse.get(using);
      if (!config) throw wrongInput(`Not existing vector name error: ${using || '(default dense vector) cannot take a sparse query'}`);
      const target = checkSparse(nearest, `${where}.query`);
      scored = sparseScores(collection, candidates, using, target, config.modifier === 'idf');
    } else {
      throw new BadRequest(400, `Bad request: the stand-in does not implement this query: ${JSON.stringify(query).slice(0, 80)}`);
    }
    return scored
      .filter(({ score }) => threshold === null || score >= threshold)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }

  function denseScores(candidates: StoredPoint[], using: string, target: number[], distance: string): ScoredPoint[] {
    const query = distance === 'Cosine' ? unit(target) : target;
    const out: ScoredPoint[] = [];
    for (const point of candidates) {
      const vector = point.dense.get(using);
      if (!vector) continue;
      if (distance === 'Cosine' || distance === 'Dot') {
        let dot = 0;
        for (let i = 0; i < vector.length; i++) dot += (vector[i] as number) * (query[i] as number);
        out.push({ point, score: dot });
      } else {
        let sum = 0;
        for (let i = 0; i < vector.length; i++) {
          const difference = (vector[i] as number) - (query[i] as number);
          sum += distance === 'Euclid' ? difference * difference : Math.abs(difference);
        }
        out.push({ point, score: distance === 'Euclid' ? -Math.sqrt(sum) : -sum });
      }
    }
    return out;
  }

  function sparseScores(
    collection: CollectionState,
    candidates: StoredPoint[],
    using: string,
    target: SparseValue,
    idf: boolean,
  ): ScoredPoint[] {
    // IDF statistics come from the whole collection, unfiltered, as in Qdrant.
    const weights = new Map<number, number>();
    let holders = 0;
    const frequencies = new Map<number, number>();
    if (idf) {
      const wanted = new Set(target.indices);
      for (const point of collection.points.values()) {
        const vector = point.sparse.get(using);
        if (!vector) continue;
        holders++;
        for (const index of vector.indices) if (wanted.has(index)) frequencies.set(index, (frequencies.get(index) ?? 0) + 1);
      }
    }
    target.indices.forEach((index, i) => {
      const value = target.values[i] as number;
      if (!idf) return weights.set(index, value);
      const df = frequencies.get(index) ?? 0;
      return weights.set(index, value * Math.log((holders - df + 0.5) / (df + 0.5) + 1));
    });
    const out: ScoredPoint[] = [];
    for (const point of candidates) {
      const vector = point.sparse.get(using);
      if (!vector) continue;
      let score = 0;
      let shared = false;
      vector.indices.forEach((index, i) => {
        const weight = weights.get(index);
        if (weight === undefined) return;
        shared = true;
        score += weight * (vector.values[i] as number);
      });
      if (shared) out.push({ point, score });
    }
    return out;
  }

  function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  }

  function sendError(
    response: ServerResponse,
    status: number,
    message: string,
    startedAt: bigint,
    headers: Record<string, string> = {},
  ): void {
    sendJson(response, status, { status: { error: message }, time: elapsed(startedAt) }, headers);
  }

  function elapsed(since: bigint): number {
    return Number(process.hrtime.bigint() - since) / 1e9;
  }

  let listening = true;
  const stopListening = async () => {
    if (!listening) return;
    listening = false;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(failure) {
      pendingFailure = { ...failure, remaining: failure.times ?? 1 };
    },
    setDelay(ms) {
      delayMs = ms;
    },
    setUnreachable: stopListening,
    collectionNames: () => [...collections.keys()],
    close: stopListening,
  };
}

function defaultMessage(status: number): string {
  if (status === 429) return QDRANT_ERROR_MESSAGES.rateLimited;
  if (status === 507) return 'Insufficient storage: No space left on device';
  if (status >= 500) return QDRANT_ERROR_MESSAGES.internal;
  if (status === 404) return 'Not found: stand-in failure';
  if (status === 403) return 'Forbidden: stand-in failure';
  return 'Bad request: stand-in failure';
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw formatError(`${where}: invalid type, expected a map`);
  return value as Record<string, unknown>;
}

/** Qdrant's REST models reject unknown fields in the bodies we use; so does the stand-in, to catch typos. */
function allowOnly(value: Record<string, unknown>, fields: string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!fields.includes(key))
      throw formatError(`${where}: unknown field \`${key}\`, expected one of ${fields.map((f) => `\`${f}\``).join(', ')}`);
  }
}

function readLimit(value: unknown, where: string): number {
  if (value === undefined || value === null) return 10;
  if (!Number.isInteger(value) || (value as number) < 1)
    throw validationError(`${where}: value ${JSON.stringify(value)} invalid, must be 1 or larger`);
  return value as number;
}

function readFusion(query: unknown, where: string): { k: number } | null {
  if (typeof query !== 'object' || query === null || Array.isArray(query)) return null;
  if ('fusion' in query) {
    const fusion = query.fusion;
    if (fusion === 'rrf') return { k: RRF_DEFAULT_K };
    if (fusion === 'dbsf') throw new BadRequest(400, 'Bad request: the stand-in does not implement dbsf fusion');
    throw formatError(`${where}.fusion: unknown variant \`${String(fusion)}\`, expected \`rrf\` or \`dbsf\``);
  }
  if ('rrf' in query) {
    const rrf = asObject(query.rrf, `${where}.rrf`);
    const k = rrf.k ?? RRF_DEFAULT_K;
    if (!Number.isInteger(k) || (k as number) < 1) throw validationError(`${where}.rrf.k: must be a positive integer`);
    return { k: k as number };
  }
  return null;
}

function parsePointId(value: unknown, where: string): string | number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
  throw formatError(`${where}: Unable to parse UUID: ${String(value)}`);
}

function pointKey(id: string | number): string {
  return typeof id === 'number' ? `n:${id}` : `u:${id.replace(/-/g, '')}`;
}

function compareIds(a: string | number, b: string | number): number {
  // Qdrant orders integer ids before UUIDs, UUIDs by their 128-bit value.
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  const left = a.replace(/-/g, '');
  const right = b.replace(/-/g, '');
  return left < right ? -1 : left > right ? 1 : 0;
}

function compareById(a: StoredPoint, b: StoredPoint): number {
  return compareIds(a.id, b.id);
}

function checkDense(value: unknown[], size: number, where: string): number[] {
  if (value.length !== size) throw wrongInput(`Vector dimension error: expected dim: ${size}, got ${value.length}`);
  for (const component of value)
    if (typeof component !== 'number' || !Number.isFinite(component)) throw formatError(`${where}: invalid type, expected f32`);
  return value as number[];
}

function checkSparse(value: unknown, where: string): SparseValue {
  const vector = asObject(value, where);
  allowOnly(vector, ['indices', 'values'], where);
  const { indices, values } = vector;
  if (!Array.isArray(indices) || !Array.isArray(values)) throw formatError(`${where}: missing field \`indices\` or \`values\``);
  if (indices.length !== values.length) throw validationError(`${where}: indices and values must be of the same length`);
  const seen = new Set<number>();
  for (const index of indices as unknown[]) {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > 0xffffffff)
      throw formatError(`${where}.indices: invalid value, expected u32`);
    if (seen.has(index)) throw validationError(`${where}: indices must be unique`);
    seen.add(index);
  }
  for (const component of values)
    if (typeof component !== 'number' || !Number.isFinite(component)) throw formatError(`${where}.values: invalid type, expected f32`);
  return { indices: [...(indices as number[])], values: [...(values as number[])] };
}

/** Qdrant normalises vectors of a Cosine space when storing them, so cosine becomes a dot product. */
function stored(vector: number[], distance: string): number[] {
  return distance === 'Cosine' ? unit(vector) : [...vector];
}

function unit(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm === 0 ? vector.map(() => 0) : vector.map((x) => x / norm);
}

type PayloadSelector = { include: string[] | null } | null;

function parseWithPayload(value: unknown, defaultValue: boolean): PayloadSelector {
  if (value === undefined || value === null) return defaultValue ? { include: null } : null;
  if (value === true) return { include: null };
  if (value === false) return null;
  if (Array.isArray(value) && value.every((field) => typeof field === 'string')) return { include: value };
  if (typeof value === 'object' && value !== null && Array.isArray((value as { include?: unknown }).include)) {
    return { include: (value as { include: string[] }).include };
  }
  throw formatError('with_payload: data did not match any variant of untagged enum WithPayloadInterface');
}

function parseWithVector(value: unknown): boolean | string[] {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return true;
  if (Array.isArray(value) && value.every((name) => typeof name === 'string')) return value;
  throw formatError('with_vector: data did not match any variant of untagged enum WithVector');
}

function record(point: StoredPoint, payload: PayloadSelector, withVector: boolean | string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: point.id };
  if (payload) {
    out.payload = payload.include
      ? Object.fromEntries(payload.include.filter((field) => field in point.payload).map((field) => [field, point.payload[field]]))
      : structuredClone(point.payload);
  }
  if (withVector) {
    const vector: Record<string, unknown> = {};
    const wanted = (name: string) => withVector === true || withVector.includes(name);
    for (const [name, value] of point.dense) if (wanted(name)) vector[name] = [...value];
    for (const [name, value] of point.sparse) if (wanted(name)) vector[name] = { indices: [...value.indices], values: [...value.values] };
    out.vector = vector;
  }
  return out;
}

type PointPredicate = (point: StoredPoint) => boolean;

/** Parses Qdrant's filter syntax (must / should / must_not / min_should with field, has_id, is_empty and nested conditions). */
function parseFilter(raw: unknown, where: string): PointPredicate {
  const filter = asObject(raw, where);
  allowOnly(filter, ['must', 'should', 'must_not', 'min_should'], where);
  const list = (value: unknown, at: string): PointPredicate[] => {
    if (value === undefined || value === null) return [];
    const items = Array.isArray(value) ? value : [value];
    return items.map((item, i) => parseCondition(item, `${at}[${i}]`));
  };
  const must = list(filter.must, `${where}.must`);
  const should = list(filter.should, `${where}.should`);
  const mustNot = list(filter.must_not, `${where}.must_not`);
  let minShould: { conditions: PointPredicate[]; count: number } | null = null;
  if (filter.min_should !== undefined && filter.min_should !== null) {
    const spec = asObject(filter.min_should, `${where}.min_should`);
    minShould = { conditions: list(spec.conditions, `${where}.min_should.conditions`), count: Number(spec.min_count) };
  }
  return (point) =>
    must.every((condition) => condition(point)) &&
    (should.length === 0 || should.some((condition) => condition(point))) &&
    !mustNot.some((condition) => condition(point)) &&
    (!minShould || minShould.conditions.filter((condition) => condition(point)).length >= minShould.count);
}

function parseCondition(raw: unknown, where: string): PointPredicate {
  const condition = asObject(raw, where);
  if ('must' in condition || 'should' in condition || 'must_not' in condition || 'min_should' in condition)
    return parseFilter(condition, where);
  if ('has_id' in condition) {
    if (!Array.isArray(condition.has_id)) throw formatError(`${where}.has_id: expected a list of ids`);
    const ids = new Set(condition.has_id.map((id, i) => pointKey(parsePointId(id, `${where}.has_id[${i}]`))));
    return (point) => ids.has(pointKey(point.id));
  }
  if ('is_empty' in condition) {
    const key = asObject(condition.is_empty, `${where}.is_empty`).key;
    if (typeof key !== 'string') throw formatError(`${where}.is_empty: missing field \`key\``);
    return (point) => {
      const value = point.payload[key];
      return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
    };
  }
  if (typeof condition.key !== 'string') {
    throw formatError(`${where}: data did not match any variant of untagged enum Condition`);
  }
  const key = condition.key;
  allowOnly(condition, ['key', 'match', 'range', 'values_count', 'is_empty', 'is_null'], where);
  if (condition.match === undefined)
    throw new BadRequest(400, `Bad request: the stand-in only implements \`match\` field conditions (${where})`);
  const match = asObject(condition.match, `${where}.match`);
  const values = (point: StoredPoint): unknown[] => {
    const value = point.payload[key];
    if (value === undefined || value === null) return [];
    return Array.isArray(value) ? value : [value];
  };
  const scalar = (value: unknown) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  if ('value' in match) {
    if (!scalar(match.value)) throw formatError(`${where}.match.value: expected a string, integer or boolean`);
    return (point) => values(point).some((value) => value === match.value);
  }
  if ('any' in match) {
    if (!Array.isArray(match.any) || !match.any.every(scalar))
      throw formatError(`${where}.match.any: expected a list of strings or integers`);
    const wanted = new Set<unknown>(match.any);
    return (point) => values(point).some((value) => wanted.has(value));
  }
  if ('except' in match) {
    if (!Array.isArray(match.except)) throw formatError(`${where}.match.except: expected a list`);
    const excluded = new Set<unknown>(match.except);
    return (point) => values(point).length > 0 && !values(point).some((value) => excluded.has(value));
  }
  if ('text' in match) {
    if (typeof match.text !== 'string') throw formatError(`${where}.match.text: expected a string`);
    const text = match.text;
    return (point) => values(point).some((value) => typeof value === 'string' && value.includes(text));
  }
  throw formatError(`${where}.match: data did not match any variant of untagged enum Match`);
}
