// Opens a server's conversation store on DATA_DIR (argv[2]), prints its database process's pid and socket and waits to be
// killed, as a server would be (pglite-process-store.test.ts).
import { createConversationStore } from '../../conversations/create-conversation-store.js';
import type { PgliteProcessStore } from '../../conversations/pglite-process-store.js';

const store = (await createConversationStore({ dataDir: process.argv[2]!, pgliteProcess: true })) as PgliteProcessStore;
await store.migrate();
process.stdout.write(`database pid ${store.processId()} socket ${store.socketPath}\n`);
setInterval(() => undefined, 60_000);
