// jsdom has no fetch, streams or TextDecoder; the widget's transport needs the
// real ones, so tests get Node's (the same undici fetch the browser API mirrors).
import { TestEnvironment } from 'jest-environment-jsdom';

const FROM_NODE = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'TextDecoder',
  'TextEncoder',
  'AbortController',
  'AbortSignal',
  'DOMException',
  'structuredClone',
];

export default class JsdomWithFetchEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of FROM_NODE) this.global[name] = globalThis[name];
  }
}
