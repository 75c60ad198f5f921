/**
 * Statements per bet without `pg_stat_statements` (a fresh cluster, CI): a TCP relay between the
 * provider and PostgreSQL that reads the frontend side of the wire protocol and counts what the
 * provider sends. A statement is an `Execute` message (extended protocol: every parameterised
 * query, named prepared statements included) or a simple `Query` message (knex's BEGIN/COMMIT,
 * parameterless statements); a round trip is a `Sync` or a simple `Query` (each waits for
 * ReadyForQuery). Only the provider's connections go through it, so the harness's own reads of
 * the counters never count. The relay costs the harness process a little CPU (printed as
 * "client").
 */
import net from 'node:net';

export interface WireCounts {
  statements: number;
  roundTrips: number;
  connections: number;
}

export interface WireCounter {
  port: number;
  /** `postgres://…` of the target with host and port replaced by the relay's. */
  urlFor(databaseUrl: string): string;
  counts(): WireCounts;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** Relays 127.0.0.1:<port> to the host and port of `targetUrl`, counting frontend messages. */
export async function startWireCounter(targetUrl: string, port = 0): Promise<WireCounter> {
  const target = new URL(targetUrl);
  const host = target.hostname || '127.0.0.1';
  const targetPort = Number(target.port || 5432);
  const counts: WireCounts = { statements: 0, roundTrips: 0, connections: 0 };
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    counts.connections += 1;
    const upstream = net.connect(targetPort, host);
    sockets.add(client);
    sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    let startup = true; // untyped messages until the StartupMessage
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let off = 0;
      for (;;) {
        if (startup) {
          if (pending.length - off < 8) break;
          const len = pending.readInt32BE(off);
          if (pending.length - off < len) break;
          const code = pending.readInt32BE(off + 4);
          off += len;
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
          continue;
        }
        if (pending.length - off < 5) break;
        const type = pending[off]!;
        const len = pending.readInt32BE(off + 1);
        if (pending.length - off < 1 + len) break;
        if (type === 0x45 /* E */) counts.statements += 1;
        else if (type === 0x51 /* Q */) {
          counts.statements += 1;
          counts.roundTrips += 1;
        } else if (type === 0x53 /* S */) counts.roundTrips += 1;
        off += 1 + len;
      }
      pending = off >= pending.length ? Buffer.alloc(0) : pending.subarray(off);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as net.AddressInfo).port;
  return {
    port: actual,
    urlFor(databaseUrl: string) {
      const u = new URL(databaseUrl);
      u.hostname = '127.0.0.1';
      u.port = String(actual);
      return u.toString();
    },
    counts: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
