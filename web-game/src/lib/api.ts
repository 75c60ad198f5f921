/**
 * Requests to the provider's player API (same origin). Bodies are written with exact numbers
 * (lossless-json) and answers read with them: a number a double cannot hold stays its decimal
 * text. Errors become ApiError with the CONTRACT.md §2 code; a lost connection is `NETWORK`.
 * Money-moving POSTs are retried with the same idempotency key when the answer was lost or the
 * key is still in progress, so a retry can never move money twice.
 */
import { isSafeNumber, parse, stringify } from 'lossless-json';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly roundId?: string,
    readonly roundStatus?: string,
    /** The casino's own words of its refusal (issue 27): shown verbatim, as text, in place of ours. */
    readonly casinoMessage?: string,
  ) {
    super(message);
  }
}

export type Json = Record<string, unknown>;

const parseNumber = (text: string): number | string => (isSafeNumber(text) ? Number(text) : text);

function readJson(text: string): unknown {
  return text === '' ? null : parse(text, null, parseNumber);
}

async function once(method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal): Promise<Json> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? null : (stringify(body) ?? ''),
      credentials: 'omit',
      cache: 'no-store',
      signal: signal ?? null,
    });
  } catch (err) {
    if (signal?.aborted) throw new ApiError('CASINO_TIMEOUT', 'the request took too long', 0);
    throw new ApiError('NETWORK', (err as Error).message, 0);
  }
  let data: unknown;
  try {
    data = readJson(await res.text());
  } catch {
    throw new ApiError(res.ok ? 'INTERNAL_ERROR' : 'NETWORK', 'the answer was not JSON', res.status);
  }
  const obj = (data && typeof data === 'object' ? data : {}) as Json;
  if (!res.ok) {
    const code = typeof obj.code === 'string' ? obj.code : 'UNKNOWN';
    throw new ApiError(
      code,
      typeof obj.message === 'string' ? obj.message : res.statusText,
      res.status,
      typeof obj.roundId === 'string' ? obj.roundId : undefined,
      typeof obj.roundStatus === 'string' ? obj.roundStatus : undefined,
      typeof obj.casinoMessage === 'string' && obj.casinoMessage.trim() !== '' ? obj.casinoMessage.slice(0, 300) : undefined,
    );
  }
  return obj;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const api = {
  get: (path: string, signal?: AbortSignal) => once('GET', path, undefined, signal),

  /** A POST; with `idempotent`, a lost answer or a key still in progress is retried with the same body and key. */
  async post(path: string, body: Json, opts: { idempotent?: boolean; signal?: AbortSignal } = {}): Promise<Json> {
    const tries = opts.idempotent ? 3 : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await once('POST', path, body, opts.signal);
      } catch (err) {
        const retryable = err instanceof ApiError && (err.code === 'NETWORK' || err.code === 'IDEMPOTENCY_IN_PROGRESS');
        if (!retryable || attempt >= tries) throw err;
        await sleep(600 * attempt);
      }
    }
  },
};

/** A fresh idempotency key for one player action. */
export const newKey = (): string => crypto.randomUUID();
