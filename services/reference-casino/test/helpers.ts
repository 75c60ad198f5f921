/**
 * Test helpers. Requests are signed here with node:crypto directly (not with the package's own
 * `sign`), so the tests check the recipe of SPEC.md "Authentication" independently.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { startReferenceCasino, type ReferenceCasino } from '../src/index.js';

export const OPERATORS = {
  'op-usd': { secret: 'secret-usd', currency: 'USD', decimals: 2 },
  'op-doge': { secret: 'secret-doge', currency: 'DOGE', decimals: 8 },
};
export type OperatorId = keyof typeof OPERATORS;

export function hmacHex(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload, 'utf8').digest('hex');
}

export interface CallOptions {
  operatorId?: string;
  secret?: string;
  idempotencyKey?: string;
  timestamp?: string;
  nonce?: string;
  /** Path prefix of the callback base (e.g. `/casino-a`). */
  prefix?: string;
  /** The path that goes into the signature; the interface path by default. */
  signedPath?: string;
  /** Headers to leave out. */
  omit?: string[];
  signal?: AbortSignal;
}

export interface CallResult {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

/** Signs and POSTs `body` (raw JSON text, or an object for JSON.stringify) to `path`. */
export async function call(casino: ReferenceCasino, path: string, body: string | object, o: CallOptions = {}): Promise<CallResult> {
  const operatorId = o.operatorId ?? 'op-usd';
  const secret = o.secret ?? OPERATORS[operatorId as OperatorId]?.secret ?? 'unknown';
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const timestamp = o.timestamp ?? String(Math.floor(Date.now() / 1000));
  const nonce = o.nonce ?? randomBytes(16).toString('base64url');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-operator-id': operatorId,
    'x-timestamp': timestamp,
    'x-nonce': nonce,
    'x-signature': hmacHex(secret, `POST\n${o.signedPath ?? path}\n${timestamp}\n${nonce}\n${raw}`),
  };
  if (o.idempotencyKey !== undefined) headers['x-idempotency-key'] = o.idempotencyKey;
  for (const name of o.omit ?? []) delete headers[name.toLowerCase()];
  const res = await fetch(`${casino.url}${o.prefix ?? ''}${path}`, { method: 'POST', headers, body: raw, ...(o.signal ? { signal: o.signal } : {}) });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A casino with player `p1` (USD 100.00) and a launch token for it. */
export async function setup(extra: Partial<Parameters<typeof startReferenceCasino>[0]> = {}) {
  const casino = await startReferenceCasino({ operators: OPERATORS, ...extra });
  casino.createPlayer({ playerRef: 'p1', displayName: 'Player One', balance: '100.00', currency: 'USD' });
  const token = casino.issueLaunchToken('p1');
  return { casino, token };
}

export function debitBody(token: string, amount: number | string, roundId = 'r1'): string {
  return `{"operatorId":"op-usd","playerRef":"p1","launchToken":"${token}","gameType":"dice","roundId":"${roundId}","amount":${amount},"currency":"USD"}`;
}

/** Credit has the same fields as debit. */
export const creditBody = debitBody;

export function rollbackBody(debitKey: string, amount: number | string, roundId = 'r1'): string {
  return `{"operatorId":"op-usd","playerRef":"p1","gameType":"dice","roundId":"${roundId}","debitIdempotencyKey":"${debitKey}","amount":${amount},"currency":"USD","reason":"debit ambiguous"}`;
}

export const balanceBody = { operatorId: 'op-usd', playerRef: 'p1', gameType: 'dice', currency: 'USD' };
