/**
 * A webhook receiver for the tests: a real HTTP server that records every delivery (headers, raw
 * body, whether the signature verifies with the operator's secret) and answers as told: 200,
 * 500, a huge body, or never.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverMode = 'ok' | 'fail' | 'hang' | 'huge';

export interface Delivery {
  eventId: string;
  type: string;
  body: Record<string, unknown>;
  raw: string;
  signatureValid: boolean;
  path: string;
}

export interface Receiver {
  url: string;
  mode: ReceiverMode;
  deliveries: Delivery[];
  /** Requests still held open (mode 'hang'). */
  held: number;
  close(): Promise<void>;
}

export async function startReceiver(secret: string, mode: ReceiverMode = 'ok', path = '/hooks/gp?tenant=a'): Promise<Receiver> {
  const open = new Set<ServerResponse>();
  const r: Receiver = {
    url: '',
    mode,
    deliveries: [],
    held: 0,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const h = (n: string) => String(req.headers[n] ?? '');
      const expected = createHmac('sha256', secret)
        .update(`${req.method}\n${req.url}\n${h('x-timestamp')}\n${h('x-nonce')}\n${raw}`)
        .digest('hex');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = {};
      }
      const delivery: Delivery = {
        eventId: h('x-event-id'),
        type: h('x-event-type'),
        body,
        raw,
        signatureValid: expected === h('x-signature'),
        path: req.url ?? '',
      };
      if (r.mode === 'hang') {
        r.held += 1;
        open.add(res);
        r.deliveries.push(delivery); // seen, never answered
        return;
      }
      if (r.mode === 'fail') {
        r.deliveries.push(delivery);
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
        return;
      }
      if (r.mode === 'huge') {
        r.deliveries.push(delivery);
        res.writeHead(200, { 'content-type': 'application/json' });
        const block = Buffer.alloc(64 * 1024, 'x');
        let left = 256; // 16 MiB, unless the caller hangs up first
        const write = () => {
          while (left > 0 && !res.destroyed) {
            left -= 1;
            if (!res.write(block)) return void res.once('drain', write);
          }
          if (!res.destroyed) res.end();
        };
        write();
        return;
      }
      r.deliveries.push(delivery);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return r;
}
