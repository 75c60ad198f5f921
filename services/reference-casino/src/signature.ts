/**
 * Signed wallet requests (SPEC.md "Authentication", CONTRACT.md §6).
 *
 *   X-Signature = lowercase hex HMAC-SHA256(secret, METHOD\nPATH\nX-Timestamp\nX-Nonce\nRAW_BODY)
 *
 * PATH is the interface path (`/wallet/debit`) whatever prefix the callback base carries, and
 * RAW_BODY is the exact bytes received. Checks, in order:
 *   1. a header missing or empty                                → SIGNATURE_REQUIRED
 *   2. unknown operator, malformed nonce or signature             → SIGNATURE_INVALID
 *   3. timestamp not a decimal string, or outside the clock skew → SIGNATURE_STALE
 *   4. HMAC mismatch (compared with crypto.timingSafeEqual)      → SIGNATURE_INVALID
 *   5. nonce already used by this operator                       → SIGNATURE_REPLAYED
 * A nonce is only remembered once the signature is good, so forged requests cannot burn nonces.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type SignatureCode = 'SIGNATURE_REQUIRED' | 'SIGNATURE_INVALID' | 'SIGNATURE_STALE' | 'SIGNATURE_REPLAYED';

export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
const TIMESTAMP_PATTERN = /^\d{1,15}$/;
const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

/** The string that is signed. */
export function signingPayload(method: string, path: string, timestamp: string, nonce: string, body: string | Buffer): Buffer {
  const head = Buffer.from(`${method.toUpperCase()}\n${path}\n${timestamp}\n${nonce}\n`, 'utf8');
  return Buffer.concat([head, typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** Lowercase hex HMAC-SHA256 of the signing payload. */
export function sign(secret: string, method: string, path: string, timestamp: string, nonce: string, body: string | Buffer): string {
  return createHmac('sha256', secret)
    .update(signingPayload(method, path, timestamp, nonce, body))
    .digest('hex');
}

/**
 * Remembers nonces per operator until their timestamp can no longer pass the skew check
 * (at least the skew window, as SPEC.md asks). Expired entries are swept lazily.
 */
export function createNonceStore(skewSeconds: number) {
  const expiries = new Map<string, number>(); // `${operatorId}\0${nonce}` → unix seconds
  let lastSweep = 0;
  return {
    /** Records the nonce; returns false when it was already recorded. */
    remember(operatorId: string, nonce: string, timestamp: number, nowSeconds: number): boolean {
      if (nowSeconds - lastSweep >= 10) {
        for (const [key, expiry] of expiries) if (expiry < nowSeconds) expiries.delete(key);
        lastSweep = nowSeconds;
      }
      const key = `${operatorId}\0${nonce}`;
      const expiry = expiries.get(key);
      if (expiry !== undefined && expiry >= nowSeconds) return false;
      expiries.set(key, Math.max(timestamp, nowSeconds) + skewSeconds);
      return true;
    },
    get size(): number {
      return expiries.size;
    },
  };
}
export type NonceStore = ReturnType<typeof createNonceStore>;

export interface SignedRequest {
  method: string;
  /** The interface path, e.g. `/wallet/debit` (prefix already removed). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}

export type VerifyResult = { ok: true; operatorId: string } | { ok: false; code: SignatureCode; message: string };

export function verifySignedRequest(
  req: SignedRequest,
  secretOf: (operatorId: string) => string | undefined,
  nonces: NonceStore,
  nowSeconds: number,
  skewSeconds: number,
  /** Misbehaviours (misbehaviours.ts) that switch single checks off; none by default. */
  lax: { acceptStale?: boolean; acceptReusedNonce?: boolean; acceptBadSignature?: boolean } = {},
): VerifyResult {
  const header = (name: string): string => {
    const value = req.headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  const operatorId = header('x-operator-id');
  const timestamp = header('x-timestamp');
  const nonce = header('x-nonce');
  const signature = header('x-signature');
  const fail = (code: SignatureCode, message: string): VerifyResult => ({ ok: false, code, message });

  if (!operatorId || !timestamp || !nonce || !signature) {
    return fail('SIGNATURE_REQUIRED', 'X-Operator-Id, X-Timestamp, X-Nonce and X-Signature are required');
  }
  const secret = secretOf(operatorId);
  if (secret === undefined) return fail('SIGNATURE_INVALID', 'unknown operator');
  if (!NONCE_PATTERN.test(nonce)) return fail('SIGNATURE_INVALID', 'X-Nonce must be 16..128 characters of [A-Za-z0-9_-]');
  if (!SIGNATURE_PATTERN.test(signature)) return fail('SIGNATURE_INVALID', 'X-Signature must be 64 lowercase hex characters');
  if (!TIMESTAMP_PATTERN.test(timestamp)) return fail('SIGNATURE_STALE', 'X-Timestamp must be unix seconds as a decimal string');
  const ts = Number(timestamp);
  if (!lax.acceptStale && Math.abs(nowSeconds - ts) > skewSeconds) return fail('SIGNATURE_STALE', `X-Timestamp outside the allowed skew of ${skewSeconds}s`);

  const expected = createHmac('sha256', secret)
    .update(signingPayload(req.method, req.path, timestamp, nonce, req.rawBody))
    .digest();
  if (!lax.acceptBadSignature && !timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return fail('SIGNATURE_INVALID', 'signature does not match');

  if (!lax.acceptReusedNonce && !nonces.remember(operatorId, nonce, ts, nowSeconds)) return fail('SIGNATURE_REPLAYED', 'X-Nonce already used');
  return { ok: true, operatorId };
}

export interface SignRequestInput {
  operatorId: string;
  secret: string;
  method: string;
  /** The path that is signed: the interface path, or the request target for the provider's operator API. */
  path: string;
  body: string | Buffer;
  /** Unix seconds; now by default. */
  timestamp?: number;
  /** New random nonce by default. */
  nonce?: string;
  idempotencyKey?: string;
}

/** The headers of a signed request (what the provider sends; also what a casino uses to call the provider). */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = input.nonce ?? randomBytes(18).toString('base64url');
  return {
    'content-type': 'application/json',
    'x-operator-id': input.operatorId,
    'x-timestamp': timestamp,
    'x-nonce': nonce,
    'x-signature': sign(input.secret, input.method, input.path, timestamp, nonce, input.body),
    ...(input.idempotencyKey !== undefined ? { 'x-idempotency-key': input.idempotencyKey } : {}),
  };
}
