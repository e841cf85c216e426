/**
 * Jest runs each test file in a vm context whose `globalThis` is not Node's.
 * Node's built-in fetch registers its Undici dispatcher on the real global,
 * and @google/genai looks it up on `globalThis`, so inside Jest the SDK fails
 * with "Undici globalDispatcher is not available". Importing the stand-ins
 * links the sandbox to the real global's dispatcher; outside a sandbox this
 * does nothing.
 */
const DISPATCHER = Symbol.for('undici.globalDispatcher.1');

function linkUndiciDispatcher(): void {
  const sandbox = globalThis as Record<symbol, unknown>;
  if (typeof fetch !== 'function' || DISPATCHER in sandbox) return;
  // `fetch` is copied from the real global, so its Function constructor belongs to that realm.
  const realGlobal = ((fetch.constructor as FunctionConstructor)('return globalThis') as () => Record<symbol, unknown>)();
  if (realGlobal === sandbox) return;
  new Headers(); // Node creates its dispatcher lazily on first use of the fetch classes.
  Object.defineProperty(sandbox, DISPATCHER, {
    configurable: true,
    get: () => realGlobal[DISPATCHER],
    set: (value: unknown) => {
      realGlobal[DISPATCHER] = value;
    },
  });
}

linkUndiciDispatcher();
