/** Provable fairness (CONTRACT.md §9): the check value, the byte stream, seeds, χ² uniformity. */
import { createHmac } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { bytesToFloat, floats, roundDigest, streamBytes } from '../src/fairness/stream.js';
import { clientSeedSchema, defaultClientSeed, hashServerSeed, isValidClientSeed, serverSeedFromBytes } from '../src/fairness/seeds.js';
import { settleDice } from '../src/games/dice.js';
import { settleLimbo } from '../src/games/limbo.js';

const SERVER_SEED = '18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159';
const CLIENT_SEED = 'bb62964774';

describe('check value (CONTRACT.md §9)', () => {
  it('round-0 digest, first float, dice roll and limbo result', () => {
    expect(Buffer.from(roundDigest(SERVER_SEED, CLIENT_SEED, 1, 0)).toString('hex')).toBe('c590d171e39b70404ee1fff2ce09c3e1090688e1320a9cd27f58b1ac3dfa8c92');
    const [f0] = floats(SERVER_SEED, CLIENT_SEED, 1, 1);
    expect(f0).toBe(0xc590d171 / 2 ** 32);
    expect(f0?.toFixed(12)).toBe('0.771740999306');
    const fl = floats(SERVER_SEED, CLIENT_SEED, 1, 1);
    expect(settleDice(fl, { target: 50, direction: 'over' }).result.roll).toBe(77.18);
    expect(settleLimbo(fl, { target: 2 }).result.result).toBe(1.28);
  });
  it('accepts the nonce as a bigint too', () => {
    expect(floats(SERVER_SEED, CLIENT_SEED, 1n, 3)).toEqual(floats(SERVER_SEED, CLIENT_SEED, 1, 3));
  });
});

describe('byte stream', () => {
  it('concatenates the digests of rounds 0, 1, 2, ...', () => {
    const bytes = streamBytes(SERVER_SEED, CLIENT_SEED, 7, 80);
    const expected = Buffer.concat([0, 1, 2].map((r) => roundDigest(SERVER_SEED, CLIENT_SEED, 7, r))).subarray(0, 80);
    expect(Buffer.from(bytes).equals(expected)).toBe(true);
  });
  it('makes float i of bytes 4i..4i+3, big-endian / 2^32, in [0, 1)', () => {
    const bytes = streamBytes(SERVER_SEED, CLIENT_SEED, 3, 52 * 4);
    const fl = floats(SERVER_SEED, CLIENT_SEED, 3, 52);
    expect(fl[9]).toBe(Buffer.from(bytes).readUInt32BE(36) / 2 ** 32);
    expect(fl[51]).toBe(Buffer.from(bytes).readUInt32BE(204) / 2 ** 32);
    expect(bytesToFloat(new Uint8Array([255, 255, 255, 255]))).toBe(1 - 2 ** -32);
    expect(bytesToFloat(new Uint8Array([0, 0, 0, 0]))).toBe(0);
    expect(bytesToFloat(new Uint8Array([128, 0, 0, 0]))).toBe(0.5);
  });
  it('keys with the seed text (UTF-8), not its decoded hex, message clientSeed:nonce:round', () => {
    const independent = createHmac('sha256', Buffer.from(SERVER_SEED, 'utf8')).update(`${CLIENT_SEED}:12:3`).digest('hex');
    expect(Buffer.from(roundDigest(SERVER_SEED, CLIENT_SEED, 12, 3)).toString('hex')).toBe(independent);
    const hexKeyed = createHmac('sha256', Buffer.from(SERVER_SEED, 'hex')).update(`${CLIENT_SEED}:12:3`).digest('hex');
    expect(independent).not.toBe(hexKeyed);
    expect(Buffer.from(roundDigest('sëed', 'c', 0, 0)).toString('hex')).toBe(createHmac('sha256', 'sëed').update('c:0:0').digest('hex'));
  });
  it('refuses a negative or fractional nonce', () => {
    expect(() => floats(SERVER_SEED, CLIENT_SEED, -1, 1)).toThrow(RangeError);
    expect(() => floats(SERVER_SEED, CLIENT_SEED, 1.5, 1)).toThrow(RangeError);
  });
});

describe('seeds', () => {
  it('hashes the server seed text (UTF-8) with SHA-256, lowercase hex', () => {
    expect(hashServerSeed('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashServerSeed(SERVER_SEED)).toMatch(/^[0-9a-f]{64}$/);
  });
  it('makes a server seed of 64 lowercase hex from 32 bytes', () => {
    const bytes = new Uint8Array(32).map((_, i) => i * 8);
    expect(serverSeedFromBytes(bytes)).toBe('0008101820283038404850586068707880889098a0a8b0b8c0c8d0d8e0e8f0f8');
    expect(() => serverSeedFromBytes(new Uint8Array(31))).toThrow(RangeError);
  });
  it('makes a default client seed of hex', () => {
    expect(defaultClientSeed(new Uint8Array([0xbb, 0x62, 0x96, 0x47, 0x74]))).toBe(CLIENT_SEED);
    expect(isValidClientSeed(defaultClientSeed(new Uint8Array(32).fill(255)))).toBe(true);
  });
  it('accepts 1 to 64 printable characters as a client seed', () => {
    for (const ok of ['a', 'x'.repeat(64), 'my seed!', 'héllo✓', '€'.repeat(64)]) expect(isValidClientSeed(ok)).toBe(true);
    for (const bad of ['', 'x'.repeat(65), 'tab\there', 'nl\n', '\u0000', 'zero\u200bwidth', 12]) {
      expect(isValidClientSeed(bad)).toBe(false);
    }
    expect(clientSeedSchema.safeParse('ok').success).toBe(true);
    expect(clientSeedSchema.safeParse('').success).toBe(false);
  });
});

/** Upper χ² quantile, Wilson–Hilferty approximation. */
function chiSquareQuantile(df: number, z: number): number {
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

function chiSquare(values: number[], buckets: number): number {
  const counts = new Array<number>(buckets).fill(0);
  for (const v of values) counts[Math.floor(v * buckets)]! += 1;
  const expected = values.length / buckets;
  return counts.reduce((a, c) => a + (c - expected) ** 2 / expected, 0);
}

describe('uniformity of the float stream (χ², 100 buckets, p = 10^-4 threshold ≈ 160.2)', () => {
  const threshold = chiSquareQuantile(99, 3.719);
  it('threshold is about 160', () => {
    expect(threshold).toBeGreaterThan(158);
    expect(threshold).toBeLessThan(162);
  });
  it('100k floats of one long stream', () => {
    const fl = floats('chi-square-server-seed', 'chi-square-client', 0, 100_000);
    expect(chiSquare(fl, 100)).toBeLessThan(threshold);
  });
  it('the first float of 100k consecutive nonces (what dice and limbo use)', () => {
    const fl: number[] = [];
    for (let n = 0; n < 100_000; n += 1) fl.push(floats(SERVER_SEED, CLIENT_SEED, n, 1)[0]!);
    expect(chiSquare(fl, 100)).toBeLessThan(threshold);
  });
});
