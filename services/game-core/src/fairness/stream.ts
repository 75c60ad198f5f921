/**
 * The provably fair byte stream and its floats (CONTRACT.md §9), to the byte:
 * HMAC-SHA256 with key = the serverSeed text (UTF-8) and message `clientSeed:nonce:round`,
 * the 32-byte digests of rounds 0, 1, 2, ... concatenated; float i = stream bytes 4i..4i+3 as a
 * big-endian uint32 divided by 2^32, in [0, 1).
 */
import { hmacSha256 } from './hash.js';

const DIGEST_BYTES = 32;
const TWO_POW_32 = 4294967296;

/** A nonce: a non-negative integer (a number or, as the store keeps it, a bigint). */
export type Nonce = number | bigint;

function checkNonce(nonce: Nonce): void {
  const ok = typeof nonce === 'bigint' ? nonce >= 0n : Number.isSafeInteger(nonce) && nonce >= 0;
  if (!ok) throw new RangeError(`nonce must be a non-negative integer: ${nonce}`);
}

/** The 32-byte HMAC-SHA256 digest of one round of the stream. */
export function roundDigest(serverSeed: string, clientSeed: string, nonce: Nonce, round: number): Uint8Array {
  checkNonce(nonce);
  return hmacSha256(serverSeed, `${clientSeed}:${nonce}:${round}`);
}

/** The first `count` bytes of the stream. */
export function streamBytes(serverSeed: string, clientSeed: string, nonce: Nonce, count: number): Uint8Array {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer: ${count}`);
  const out = new Uint8Array(count);
  for (let round = 0; round * DIGEST_BYTES < count; round += 1) {
    const digest = roundDigest(serverSeed, clientSeed, nonce, round);
    out.set(digest.subarray(0, Math.min(DIGEST_BYTES, count - round * DIGEST_BYTES)), round * DIGEST_BYTES);
  }
  return out;
}

/** Float made of 4 stream bytes from `offset`: b0/256 + b1/256^2 + b2/256^3 + b3/256^4. */
export function bytesToFloat(bytes: Uint8Array, offset = 0): number {
  const b0 = bytes[offset];
  const b1 = bytes[offset + 1];
  const b2 = bytes[offset + 2];
  const b3 = bytes[offset + 3];
  if (b0 === undefined || b1 === undefined || b2 === undefined || b3 === undefined) {
    throw new RangeError('need 4 bytes for a float');
  }
  return (((b0 << 24) >>> 0) + (b1 << 16) + (b2 << 8) + b3) / TWO_POW_32;
}

/** The first `count` floats of the stream of (serverSeed, clientSeed, nonce). */
export function floats(serverSeed: string, clientSeed: string, nonce: Nonce, count: number): number[] {
  const bytes = streamBytes(serverSeed, clientSeed, nonce, count * 4);
  const out = new Array<number>(count);
  for (let i = 0; i < count; i += 1) out[i] = bytesToFloat(bytes, 4 * i);
  return out;
}
