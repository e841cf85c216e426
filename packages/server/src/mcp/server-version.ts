/** The server package's version, as MCP clients see it in `initialize`. */
import { createRequire } from 'node:module';

export const DOCS_CHAT_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
