/**
 * A TCP relay in front of the real Postgres that the suite switches off and
 * on, as a database restart looks to a running server: switching off drops
 * every open connection and refuses new ones. It can also stall: connections
 * stay open (and new ones are accepted) but nothing passes either way until it
 * is released, as with a stalled host or a paused container; what was held
 * back then flows on.
 * (The server's own outage test keeps a similar relay private to its test file.)
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpRelay {
  port: number;
  up: boolean;
  stalled: boolean;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const open = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let up = true;
  let stalled = false;
  const link = ([client, upstream]: [Socket, Socket]): void => {
    client.pipe(upstream).pipe(client);
  };
  const hold = ([client, upstream]: [Socket, Socket]): void => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  const server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(target);
    open.add(client).add(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    if (stalled) hold(pair);
    else link(pair);
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
    get stalled() {
      return stalled;
    },
    set stalled(value: boolean) {
      if (value === stalled) return;
      stalled = value;
      for (const pair of pairs) (value ? hold : link)(pair);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
