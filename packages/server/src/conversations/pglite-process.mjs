// The embedded conversation database in a process of its own (see pglite-process-store.ts): PGlite opens the
// folder and answers the Postgres wire protocol on a local socket, so the server talks to it with the same
// driver as to PostgreSQL, and PGlite's WebAssembly runs on its own core instead of the server's event loop.
// Usage (spawned with an IPC channel): node pglite-process.mjs FOLDER SOCKET PID_FILE START_PARAMS_JSON
// Sends {type: 'ready'} once it listens; ends when asked (SIGTERM, or {type: 'stop'}) or when the server that
// started it goes away (the IPC channel closes), closing the database first so no write is lost.
//
// The socket side is written here rather than taken from @electric-sql/pglite-socket, which hands PGlite each
// protocol message on its own: a driver pipelines Bind/Execute/Sync and more, and handing PGlite everything that
// has arrived in one call took half the CPU (0.26 against 0.57 ms per insert-and-update pair, 200 concurrent
// writers through `postgres`; issue 16's CPU budget per answer), and that package requires seven PGlite
// extension packages at install that the store never loads.
import { createServer } from 'node:net';
import { rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

// PID_FILE names the process holding the folder and its socket, so a server starting while this one still closes
// waits for it, and a command run beside the server can use it.
const [location, socketPath, pidFile, startParams] = process.argv.slice(2);

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

let db;
let server;
let stopping;
const sockets = new Set();

// Every connection's statements run one batch at a time; while one connection is inside a transaction, only its
// batches run, and the transaction is rolled back if that connection goes away.
const queue = [];
let pumping = false;
let transactionOwner = null;

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    for (;;) {
      if (transactionOwner?.destroyed) {
        transactionOwner = null;
        await db.exec('ROLLBACK').catch(() => undefined);
      }
      const index = transactionOwner ? queue.findIndex((item) => item.socket === transactionOwner) : 0;
      if (queue.length === 0 || index === -1) break;
      const [item] = queue.splice(index, 1);
      if (item.socket.destroyed) continue;
      try {
        await db.runExclusive(() =>
          db.execProtocolRawStream(item.bytes, {
            onRawData: (output) => {
              if (output.length > 0 && !item.socket.destroyed) item.socket.write(Buffer.from(output));
            },
          }),
        );
      } catch (error) {
        process.stderr.write(`a statement failed inside PGlite: ${error instanceof Error ? error.message : String(error)}\n`);
        item.socket.destroy();
      }
      transactionOwner = db.isInTransaction() ? item.socket : null;
    }
  } finally {
    pumping = false;
  }
}

/** Splits what a connection sent into whole protocol messages; answers the requests PGlite does not handle. */
function onConnection(socket) {
  let pending = Buffer.alloc(0);
  let started = false;
  sockets.add(socket);
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    sockets.delete(socket);
    for (let index = queue.length - 1; index >= 0; index -= 1) if (queue[index].socket === socket) queue.splice(index, 1);
    if (transactionOwner === socket) void pump();
  });
  socket.on('data', (chunk) => {
    pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    let offset = 0;
    const messages = [];
    for (;;) {
      const left = pending.length - offset;
      if (!started) {
        // Before the startup message: a length, then a code (no type byte).
        if (left < 8) break;
        const length = pending.readInt32BE(offset);
        const code = pending.readInt32BE(offset + 4);
        if (left < length) break;
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          socket.write('N');
        } else if (code === CANCEL_REQUEST) {
          socket.end();
          return;
        } else if (code === PROTOCOL_3) {
          messages.push(pending.subarray(offset, offset + length));
          started = true;
        } else {
          socket.destroy();
          return;
        }
        offset += length;
        continue;
      }
      if (left < 5) break;
      const length = 1 + pending.readInt32BE(offset + 1);
      if (left < length) break;
      messages.push(pending.subarray(offset, offset + length));
      offset += length;
    }
    pending = pending.subarray(offset);
    if (messages.length === 0) return;
    queue.push({ socket, bytes: new Uint8Array(messages.length === 1 ? messages[0] : Buffer.concat(messages)) });
    void pump();
  });
}

function stop(exitCode = 0) {
  stopping ??= (async () => {
    try {
      if (server) {
        const closed = new Promise((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await closed;
      }
      await db?.close();
    } catch (error) {
      process.stderr.write(`closing the conversation database failed: ${error instanceof Error ? error.message : String(error)}\n`);
      exitCode = 1;
    }
    await unlink(pidFile).catch(() => undefined);
    // The server removes the socket's folder when it stops the process; a server that was killed cannot.
    if (process.platform !== 'win32') {
      await unlink(socketPath).catch(() => undefined);
      await rmdir(path.dirname(socketPath)).catch(() => undefined);
    }
    process.exit(exitCode);
  })();
  return stopping;
}

process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('disconnect', () => void stop());
process.on('message', (message) => {
  if (message && message.type === 'stop') void stop();
});

try {
  // The pid, then the socket: a command run beside the server (docs-chat insights) reaches the database there.
  await writeFile(pidFile, `${process.pid}\n${socketPath}\n`);
  db = await PGlite.create(location, { startParams: JSON.parse(startParams) });
  // A process that died (and was restarted by the server) leaves its socket file behind.
  if (process.platform !== 'win32') await unlink(socketPath).catch(() => undefined);
  server = createServer(onConnection);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  if (stopping) await stopping;
  process.send?.({ type: 'ready' });
} catch (error) {
  process.stderr.write(error instanceof Error ? error.message : String(error));
  await stop(1);
}
