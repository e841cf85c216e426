/**
 * Request validation by the routes' JSON Schemas (Fastify's Ajv), with every
 * problem turned into a sentence that says what to change, returned as the
 * documented `invalid_request` error (at most ten listed, then a count).
 *
 * The schemas come from the protocol package where the widget shares them
 * (`chatRequestSchema`), or sit beside their route. A property schema may carry
 * `problem`: the end of a sentence starting with the field's name, used instead
 * of the generic one for a value of the wrong form.
 */
import type { FastifyServerOptions } from 'fastify';
import { HttpError } from './http-errors.js';

/** Ajv's options for every route schema. */
export const ajvOptions = {
  customOptions: {
    // Every problem at once, so a client fixes its request in one go. The body is bounded by
    // BODY_LIMIT_BYTES, and each problem costs a few bytes, which keeps listing them all cheap.
    allErrors: true,
    // The schema's word is final: no silent dropping of unknown fields, no turning 5 into "5".
    removeAdditional: false,
    coerceTypes: false,
    // For the messages below: the failing value and the schema around the keyword.
    verbose: true,
    keywords: ['problem'],
  },
} satisfies FastifyServerOptions['ajv'];

/** The subset of Ajv's ErrorObject read here. */
export interface SchemaProblem {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}

/** Fastify's `schemaErrorFormatter`: the documented 400 instead of Fastify's own message. */
export function schemaErrorFormatter(errors: SchemaProblem[], part: string): Error {
  return new HttpError('invalid_request', { details: describeSchemaProblems(errors, part) });
}

export function describeSchemaProblems(errors: SchemaProblem[], part: string): string[] {
  // An `anyOf` speaks for its branches: their own failures only repeat it in other words.
  const anyOfPaths = errors
    .filter((error) => error.keyword === 'anyOf')
    .map((error) => `${error.schemaPath.slice(0, -'/anyOf'.length)}/anyOf/`);
  const details: string[] = [];
  for (const error of errors) {
    // The `if` of an if/then only says that `then` failed, which has its own error.
    if (error.keyword === 'if' || anyOfPaths.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    details.push(describe(error, part));
  }
  return details;
}

const LENGTH_KEYWORDS = new Set(['maxLength', 'minLength', 'maxItems']);

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

function describe(error: SchemaProblem, part: string): string {
  const path = fieldPath(error.instancePath);
  const name = part === 'params' ? `The ${path} in the path` : `"${path}"`;
  const schema = error.parentSchema ?? {};
  const problem = typeof schema.problem === 'string' ? schema.problem : undefined;
  const field = part === 'querystring' ? 'parameter' : 'field';
  switch (error.keyword) {
    case 'additionalProperties': {
      const allowed = Object.keys(schema.properties ?? {}).join(', ');
      return `Unknown ${field} "${join(path, String(error.params.additionalProperty))}": allowed ${field}s are ${allowed}.`;
    }
    case 'required': {
      const missing = `"${join(path, String(error.params.missingProperty))}" is required`;
      return problem ? `${missing} ${problem}` : `${missing}.`;
    }
    default:
      break;
  }
  if (path === '') return `The ${part === 'querystring' ? 'query string' : 'body'} must be a JSON object.`;
  // A length or count has a better generic sentence: it gives the limit and the value's size.
  if (problem && !LENGTH_KEYWORDS.has(error.keyword)) return `${name} ${problem}`;
  switch (error.keyword) {
    case 'type': {
      const types = String(error.params.type).split(',');
      return `${name} must be ${types.map((type) => TYPE_WORDS[type] ?? type).join(' or ')}.`;
    }
    case 'enum':
      return `${name} must be ${wordList((error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)))}.`;
    case 'const':
      return `${name} must be ${JSON.stringify(error.params.allowedValue)}.`;
    case 'maxLength':
      return `${name} is ${typeof error.data === 'string' ? [...error.data].length : 'too many'} characters; the limit is ${String(error.params.limit)}.`;
    case 'minLength':
      return `${name} must have at least ${String(error.params.limit)} characters.`;
    case 'maxItems':
      return `${name} must have at most ${String(error.params.limit)} items.`;
    case 'minimum':
    case 'maximum':
      return `${name} must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(error.params.limit)}.`;
    default:
      return `${name} is not in the expected form.`;
  }
}

/** `/page/url` → `page.url`, `/sources/0` → `sources.0`. */
function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function wordList(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}
