/**
 * A TCP relay in front of the real Postgres that the suite switches off and
 * on, as a database restart looks to a running server: switching off drops
 * every open connection and refuses new ones.
 * (The server's own outage test keeps a similar relay private to its test file.)
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpRelay {
  port: number;
  up: boolean;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const open = new Set<Socket>();
  let up = true;
  const server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(target);
    open.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  return {
    port: address.port,
    get up() {
      return up;
    },
    set up(value: boolean) {
      up = value;
      if (!value) for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
