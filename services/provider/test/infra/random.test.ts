import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from '../../src/infra/random.js';

describe('pooled random bytes (infra/random.ts)', () => {
  it('hands out every draw once: 50,000 nonces and IVs across many pool refills never repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50_000; i++) seen.add(pooledRandomBytes(i % 2 ? 18 : 12).toString('hex'));
    expect(seen.size).toBe(50_000);
  });

  it('answers the length asked, never bytes the pool has wiped, and large requests straight from the CSPRNG', () => {
    // a view on the pool instead of a copy would be zeroed by the wipe that follows each draw
    for (let i = 0; i < 1000; i++) {
      const a = pooledRandomBytes(12);
      expect(a).toHaveLength(12);
      expect(a.equals(Buffer.alloc(12))).toBe(false);
    }
    expect(pooledRandomBytes(1000)).toHaveLength(1000);
  });

  it('looks uniform: each byte value about equally often over 1 MiB', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 1 << 16; i++) for (const b of pooledRandomBytes(16)) counts[b]! += 1;
    const expected = (1 << 20) / 256;
    const chi2 = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(400); // 255 degrees of freedom: p < 1e-6 above ~375
  });
});
