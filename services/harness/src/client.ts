/**
 * Our small HTTP client: undici pools with keep-alive, one per origin, and a round-robin over
 * several provider processes. An answer is never thrown: a network failure is status 0 with the
 * error's code, so a harness can count it and decide.
 */
import { Pool } from 'undici';

export interface Answer {
  status: number;
  /** Parsed JSON (plain numbers), {} when the body was not JSON. */
  body: Record<string, unknown> & { code?: string; roundId?: string; roundStatus?: string };
  text: string;
  /** Network failure (status 0): the error code (ECONNREFUSED, UND_ERR_SOCKET, ...). */
  error?: string;
  /** Which origin answered. */
  origin: string;
  ms: number;
}

const pools = new Map<string, Pool>();

function poolOf(origin: string): Pool {
  let p = pools.get(origin);
  if (!p) {
    p = new Pool(origin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 60_000, connectTimeout: 5_000 });
    pools.set(origin, p);
  }
  return p;
}

export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.destroy().catch(() => undefined)));
}

export async function request(
  origin: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const started = performance.now();
  try {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await poolOf(origin).request({
      method,
      path,
      headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(payload === undefined ? {} : { body: payload }),
    });
    const text = await res.body.text();
    let parsed: Answer['body'] = {};
    if (text) {
      try {
        const v: unknown = JSON.parse(text);
        if (v && typeof v === 'object') parsed = v as Answer['body'];
      } catch {
        /* not JSON */
      }
    }
    return { status: res.statusCode, body: parsed, text, origin, ms: performance.now() - started };
  } catch (err) {
    const e = err as { code?: string; name?: string };
    return { status: 0, body: {}, text: '', error: e.code ?? e.name ?? 'error', origin, ms: performance.now() - started };
  }
}

/** Several provider processes behind one tiny round-robin (issue 14 item 3). */
export class ProviderSet {
  private next = 0;
  constructor(public origins: string[]) {}
  /** The next origin in turn. */
  pick(): string {
    const o = this.origins[this.next % this.origins.length]!;
    this.next += 1;
    return o;
  }
  /** A fixed origin for an index (players pinned to a process). */
  at(i: number): string {
    return this.origins[((i % this.origins.length) + this.origins.length) % this.origins.length]!;
  }
}

/** Equal JSON values, whatever the order of object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
