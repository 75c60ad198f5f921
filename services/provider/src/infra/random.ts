/**
 * Random bytes for the hot path (signature nonces, AES-GCM IVs), drawn from the CSPRNG 4 KiB at a
 * time, as Node's own `randomUUID` does: the cost of `randomBytes` is per call (measured on the
 * bench machine: 18 µs for 12 bytes, 61 µs for 4096), and a bet made four calls (issue 14: 3.7 %
 * of the provider's CPU under load was `randomFillSync`). Each byte is handed out once and wiped
 * from the pool when it is.
 */
import { randomBytes } from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix time in milliseconds, then 74 random bits. Round ids are
 * UUIDv7 (issue 25): the id carries the round's creation time, the key its partition is chosen by
 * (migrations/20261128131000_time_partitions.js).
 */
export function uuidv7(now = Date.now()): string {
  const b = pooledRandomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A round id: a UUIDv7 (its first 48 bits the round's time: the key of its partition) and 12 more
 * random hex digits, so it carries 74 + 48 = 122 random bits from the CSPRNG (CONTRACT.md: the
 * public `GET /api/bets/{roundId}` makes the id the capability; migration 20261128132000).
 */
export function newRoundId(now = Date.now()): string {
  return `${uuidv7(now)}-${pooledRandomBytes(6).toString('hex')}`;
}

/**
 * A session id: the same form as a round id. The id is the player's capability (every player
 * request carries it), so it keeps 122 random bits as `randomUUID` did; its first 48 bits are the
 * session's start, the key of its idempotency records' partition (migration 20261129100000).
 */
export function newSessionId(now = Date.now()): string {
  return newRoundId(now);
}

export function pooledRandomBytes(n: number): Buffer {
  if (n > 256) return randomBytes(n);
  if (offset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const out = Buffer.from(pool.subarray(offset, offset + n));
  pool.fill(0, offset, offset + n);
  offset += n;
  return out;
}
