/**
 * Run as a separate process by embedded-store.test.ts: opens the embedded
 * store in the given data folder, adds one chunk and commits, as a CLI ingest
 * would while a server keeps running.
 */
import { createEmbeddedStore } from '../embedded-store.js';
import { conformanceMeta, denseVector, makeChunk, point, sparseVector } from '../vector-store.conformance.js';

const [dataDir, number] = process.argv.slice(2);
if (!dataDir || !number) throw new Error('usage: commit-in-another-process.ts <dataDir> <chunk number>');
const store = createEmbeddedStore({ dataDir });
await store.prepare(conformanceMeta, { rebuild: false });
const n = Number(number);
await store.upsert([point(makeChunk(n, 'from-another-process.md', 0), denseVector(5), sparseVector({ 4242: 1 }))]);
await store.commit();
await store.close();
