/**
 * One definition of each message on the wire: the builders below make plain
 * JSON Schema objects (the server hands them to Fastify, which validates
 * requests with Ajv) that also carry their TypeScript type (`Static<typeof X>`),
 * and `firstProblem` checks a value against them in the browser.
 *
 * Hand-written instead of TypeBox on purpose: the plugin may add at most five
 * packages to a Docusaurus site and already adds five, and the widget bundle
 * needs only this small subset (about 150 lines) rather than a whole validator.
 *
 * Supported keywords: type (one or with "null"), const, enum, minLength,
 * maxLength, pattern, format "uuid", minimum, maximum, items, maxItems,
 * properties, required, additionalProperties: false, anyOf, if/then (the
 * server's Ajv only; `firstProblem` skips if/then), and `problem`: the end of
 * a sentence naming the field, sent back instead of a generic one.
 */


/** A JSON Schema object that also knows the TypeScript type of the values it accepts. */
// `~static` and `~optional` exist in types only: no schema object has them at run time.
export type Schema<T> = { readonly [keyword: string]: unknown } & { readonly '~static'?: T };
/** A property that may be left out of its object. */
export type OptionalSchema<T> = Schema<T> & { readonly '~optional': true };
/** The TypeScript type a schema accepts. */
export type Static<S> = S extends Schema<infer T> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<P> = { [K in keyof P]: P[K] extends { readonly '~optional': true } ? never : K }[keyof P];
type OptionalKeys<P> = Exclude<keyof P, RequiredKeys<P>>;
type ObjectStatic<P extends Record<string, Schema<unknown>>> = Simplify<
  { [K in RequiredKeys<P>]: Static<P[K]> } & { [K in OptionalKeys<P>]?: Static<P[K]> }
>;

/** What each field is, in words: sent back as the problem when a value breaks a pattern or format. */
interface Described {
  /** Ends a sentence that starts with the field's name, e.g. `must be a UUID from an earlier answer`. */
  problem?: string;
}

const optionalSchemas = new WeakSet<object>();

function described<T>(schema: Record<string, unknown>, options: Described | undefined): Schema<T> {
  return (options?.problem ? { ...schema, problem: options.problem } : schema) as Schema<T>;
}

export const Wire = {
  string(options: Described & { minLength?: number; maxLength?: number; pattern?: string; format?: 'uuid' } = {}): Schema<string> {
    const { problem, ...rest } = options;
    return described<string>({ type: 'string', ...rest }, { problem });
  },
  /** One of a fixed list of strings (codes, modes). */
  oneOf<const V extends readonly string[]>(values: V, options?: Described): Schema<V[number]> {
    return described<V[number]>({ type: 'string', enum: [...values] }, options);
  },
  literal<const V extends string>(value: V): Schema<V> {
    return { type: 'string', const: value } as Schema<V>;
  },
  number(options: { minimum?: number; maximum?: number } = {}): Schema<number> {
    return { type: 'number', ...options } as Schema<number>;
  },
  integer(options: { minimum?: number; maximum?: number } = {}): Schema<number> {
    return { type: 'integer', ...options } as Schema<number>;
  },
  boolean(): Schema<boolean> {
    return { type: 'boolean' } as Schema<boolean>;
  },
  /** The same value or `null` (the type keyword gains "null", so every other keyword still applies). */
  nullable<T>(schema: Schema<T>, options?: Described): Schema<T | null> {
    const nullable: Record<string, unknown> = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
    return described<T | null>(nullable, options);
  },
  array<T>(items: Schema<T>, options: { maxItems?: number } = {}): Schema<T[]> {
    return { type: 'array', items, ...options } as Schema<T[]>;
  },
  /** Marks an object property that may be left out. */
  optional<T>(schema: Schema<T>): OptionalSchema<T> {
    const copy = { ...schema };
    optionalSchemas.add(copy);
    return copy as OptionalSchema<T>;
  },
  /**
   * An object with these properties. `closed` objects refuse unknown fields (request bodies); open ones
   * ignore them, so a client keeps reading events that a newer minor version gave an extra field.
   */
  object<P extends Record<string, Schema<unknown>>>(properties: P, options: { closed?: boolean } & Described = {}): Schema<ObjectStatic<P>> {
    const required = Object.keys(properties).filter((key) => !optionalSchemas.has(properties[key] as object));
    const schema: Record<string, unknown> = { type: 'object', properties, required };
    if (options.closed) schema.additionalProperties = false;
    return described<ObjectStatic<P>>(schema, options);
  },
  /** An object whose fields this definition leaves open (a debugging aid that changes with the search code). */
  openObject<T extends object = Record<string, unknown>>(): Schema<T> {
    return { type: 'object', additionalProperties: true } as Schema<T>;
  },
  /** Any one of the schemas. */
  anyOf<S extends readonly Schema<unknown>[]>(variants: S): Schema<Static<S[number]>> {
    return { anyOf: [...variants] } as Schema<Static<S[number]>>;
  },
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const patterns = new Map<string, RegExp>();

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: unknown, actual: string): boolean {
  const allowed = Array.isArray(expected) ? expected : [expected];
  return allowed.some((type) => type === actual || (type === 'number' && actual === 'integer'));
}

/**
 * The first way `value` breaks `schema`, as `"path" problem`, or null when it fits. Used on every event
 * the widget receives, so it stops at the first problem instead of listing them all.
 */
export function firstProblem(schema: Schema<unknown>, value: unknown, path = ''): string | null {
  const name = path === '' ? 'the value' : `"${path}"`;
  if (Array.isArray(schema.anyOf)) {
    const fits = (schema.anyOf as Schema<unknown>[]).some((variant) => firstProblem(variant, value, path) === null);
    return fits ? null : `${name} ${(schema.problem as string | undefined) ?? 'has none of the allowed shapes'}`;
  }
  const actual = typeOf(value);
  if (schema.type !== undefined && !typeMatches(schema.type, actual)) return `${name} must be ${[schema.type].flat().join(' or ')}, not ${actual}`;
  if (schema.const !== undefined && value !== schema.const) return `${name} must be ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    return `${name} must be one of ${schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}, not ${JSON.stringify(value)}`;
  }
  if (typeof value === 'string') return stringProblem(schema, value, name);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `${name} must be at least ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `${name} must be at most ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `${name} has more than ${schema.maxItems} items`;
    const items = schema.items as Schema<unknown> | undefined;
    if (items) {
      for (let index = 0; index < value.length; index += 1) {
        const problem = firstProblem(items, value[index], `${path}[${index}]`);
        if (problem) return problem;
      }
    }
  }
  if (actual === 'object') return objectProblem(schema, value as Record<string, unknown>, path);
  return null;
}

function stringProblem(schema: Schema<unknown>, value: string, name: string): string | null {
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return `${name} must have at least ${schema.minLength} characters`;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return `${name} must have at most ${schema.maxLength} characters`;
  const wrongForm = `${name} ${(schema.problem as string | undefined) ?? 'is not in the expected form'}`;
  if (schema.format === 'uuid' && !UUID_PATTERN.test(value)) return wrongForm;
  if (typeof schema.pattern === 'string') {
    let pattern = patterns.get(schema.pattern);
    if (!pattern) patterns.set(schema.pattern, (pattern = new RegExp(schema.pattern, 'u')));
    if (!pattern.test(value)) return wrongForm;
  }
  return null;
}

function objectProblem(schema: Schema<unknown>, value: Record<string, unknown>, path: string): string | null {
  const properties = (schema.properties ?? {}) as Record<string, Schema<unknown>>;
  const prefix = path === '' ? '' : `${path}.`;
  for (const key of (schema.required ?? []) as string[]) {
    if (!(key in value)) return `"${prefix}${key}" is required`;
  }
  for (const [key, field] of Object.entries(value)) {
    const fieldSchema = properties[key];
    if (fieldSchema) {
      const problem = firstProblem(fieldSchema, field, `${prefix}${key}`);
      if (problem) return problem;
    } else if (schema.additionalProperties === false) {
      return `Unknown field "${prefix}${key}"`;
    }
  }
  return null;
}
