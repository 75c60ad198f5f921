/**
 * The wallet transport (wallet/http-transport.ts `httpTransport`, undici's dispatch API since issue
 * 25's twelfth session) against a real HTTP server: the answer read up to the cap however it comes
 * (announced or streamed), the whole call bounded by one timeout even when the casino trickles its
 * answer, and a call that timed out while waiting for a socket never sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport, TransportError, type TransportRequest } from '../../src/wallet/http-transport.js';

let server: Server | null = null;
let transportClose: (() => Promise<void>) | undefined;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await transportClose?.();
  transportClose = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const request = (base: string, over: Partial<TransportRequest> = {}): TransportRequest => ({
  operatorId: 'op-1',
  url: `${base}/wallet/debit`,
  path: '/wallet/debit',
  headers: { 'content-type': 'application/json', 'x-nonce': 'n' },
  body: '{"amount":1.00,"launchToken":"lt \\"x\\" ü"}',
  timeoutMs: 2_000,
  ...over,
});

function transport(maxResponseBytes?: number) {
  const t = httpTransport({ production: false, ...(maxResponseBytes ? { maxResponseBytes } : {}) });
  transportClose = t.close;
  return t;
}

const rejection = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TransportError);
  return err as TransportError;
};

describe('the wallet transport', () => {
  it('sends the exact body bytes and headers, and answers the status and the whole body', async () => {
    let seen: { body: string; headers: IncomingMessage['headers']; url: string | undefined } | null = null;
    const base = await serve((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        seen = { body: Buffer.concat(parts).toString('utf8'), headers: req.headers, url: req.url };
        // in several chunks, no content-length
        res.writeHead(409, { 'content-type': 'application/json' });
        res.write('{"code":"IDEMPOTENCY_CONFLICT",');
        setTimeout(() => res.end('"message":"ü"}'), 20);
      });
    });
    const r = request(base);
    const res = await transport().send(r);
    expect(res).toEqual({ statusCode: 409, body: '{"code":"IDEMPOTENCY_CONFLICT","message":"ü"}' });
    expect(seen!.body).toBe(r.body);
    expect(seen!.url).toBe('/wallet/debit');
    expect(seen!.headers['x-nonce']).toBe('n');
  });

  it('an answer announced past the cap is not read; one streamed past it is cut off there', async () => {
    const announced = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10_000_000) });
      res.write('{"pad":"');
    });
    expect((await rejection(transport(1024).send(request(announced)))).kind).toBe('oversize');
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server!.closeAllConnections();

    let written = 0;
    const streamed = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(4096);
      const more = () => {
        // a hostile casino: a 100 MB answer, written as fast as the socket takes it
        while (written < 100_000_000 && res.write(chunk)) written += chunk.length;
        if (written < 100_000_000 && !res.destroyed) res.once('drain', more);
      };
      res.on('close', () => (written = Number.POSITIVE_INFINITY));
      more();
    });
    const err = await rejection(transport(64 * 1024).send(request(streamed)));
    expect(err.kind).toBe('oversize');
    expect(err.message).toMatch(/cut off unread/);
  });

  it('one timeout bounds the whole call, also an answer trickling in under the body timeout', async () => {
    const base = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const tick = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(tick));
    });
    const err = await rejection(transport().send(request(base, { timeoutMs: 300 })));
    expect(err.kind).toBe('timeout');
  });

  it('a call that timed out while waiting for a socket is never sent', async () => {
    let received = 0;
    const base = await serve((req) => {
      received++;
      req.resume(); // and never answered
    });
    const t = transport();
    // the agent's 64 sockets to this origin held by calls of 1.5 s, then one of 0.2 s: it times out
    // waiting for a socket, and when the sockets come free it must not go out
    const holding = Array.from({ length: 64 }, () => t.send(request(base, { timeoutMs: 1_500 })));
    const waiting = await rejection(t.send(request(base, { timeoutMs: 200 })));
    expect(waiting.kind).toBe('timeout');
    const errors = await Promise.all(holding.map((c) => rejection(c)));
    expect(errors.every((e) => e.kind === 'timeout')).toBe(true);
    // a moment for anything still on its way
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toBe(64);
  });

  it('a casino that cannot be reached is a network error', async () => {
    const base = await serve(() => undefined);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    expect((await rejection(transport().send(request(base)))).kind).toBe('network');
  });
});
