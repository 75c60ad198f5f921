/**
 * Signed requests, both directions (SPEC.md Authentication, CONTRACT.md §6):
 * X-Signature = lowercase hex HMAC-SHA256(secret, METHOD\nPATH\nX-Timestamp\nX-Nonce\nRAW_BODY).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { pooledRandomBytes } from '../infra/random.js';

export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export function signaturePayload(method: string, path: string, timestamp: string, nonce: string, body: string): string {
  return `${method.toUpperCase()}\n${path}\n${timestamp}\n${nonce}\n${body}`;
}

export function sign(secret: string, method: string, path: string, timestamp: string, nonce: string, body: string): string {
  return createHmac('sha256', secret)
    .update(signaturePayload(method, path, timestamp, nonce, body), 'utf8')
    .digest('hex');
}

/** Timing-safe comparison of a received signature with the expected one. */
export function signatureMatches(expectedHex: string, receivedHex: string): boolean {
  const a = Buffer.from(expectedHex, 'utf8');
  const b = Buffer.from(receivedHex, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Timing-safe comparison of two secrets of any length (bearer tokens). */
export function secretEquals(expected: string, received: string): boolean {
  const a = createHmac('sha256', 'compare').update(expected).digest();
  const b = createHmac('sha256', 'compare').update(received).digest();
  return timingSafeEqual(a, b) && expected.length === received.length;
}

export function newNonce(): string {
  return pooledRandomBytes(18).toString('base64url');
}

export interface SignedHeaders {
  'x-operator-id': string;
  'x-timestamp': string;
  'x-nonce': string;
  'x-signature': string;
}

export function signedHeaders(operatorId: string, secret: string, method: string, path: string, body: string, nowMs: number): SignedHeaders {
  const timestamp = String(Math.floor(nowMs / 1000));
  const nonce = newNonce();
  return {
    'x-operator-id': operatorId,
    'x-timestamp': timestamp,
    'x-nonce': nonce,
    'x-signature': sign(secret, method, path, timestamp, nonce, body),
  };
}
