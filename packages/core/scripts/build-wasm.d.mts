/** Compiles dense-scan.wat and returns the module's bytes in base64. */
export function compileDenseScan(): Promise<string>;
/** The source of dense-scan-wasm.ts for those bytes. */
export function renderModule(base64: string): string;
