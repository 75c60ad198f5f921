/** The chaos run's fault rules: every wallet path is covered, and the share of requests hit is the rate asked for. */
import { validateFaultRules } from '@gp/reference-casino';
import { describe, expect, it } from 'vitest';
import { chaosFaults } from '../src/chaos.js';

describe('chaos fault rules', () => {
  it('hit each wallet path with the asked rate, with every kind on the money paths, in rules the casino accepts', () => {
    const rules = chaosFaults(0.13, 300);
    expect(() => validateFaultRules(rules)).not.toThrow();
    for (const path of ['/wallet/validate-session', '/wallet/balance', '/wallet/debit', '/wallet/credit', '/wallet/rollback']) {
      const mine = rules.filter((r) => r.path === path);
      const union = 1 - mine.reduce((acc, r) => acc * (1 - (r.probability ?? 1)), 1);
      expect(union, path).toBeCloseTo(0.13, 6);
    }
    const kinds = (path: string) => new Set(rules.filter((r) => r.path === path).map((r) => `${r.kind}:${'mode' in r ? (r.mode ?? '') : ''}`));
    for (const path of ['/wallet/debit', '/wallet/credit', '/wallet/rollback']) {
      expect([...kinds(path)], path).toEqual(
        expect.arrayContaining(['delay:', 'status:', 'drop:', 'delay-then-drop:', 'ambiguous:', 'ambiguous:drop', 'ambiguous:late', 'refuse:']),
      );
    }
    // a timeout fault is past the callback timeout, a slow one within it
    const delays = rules.filter((r) => r.kind === 'delay').map((r) => (r as { ms: number }).ms);
    expect(Math.max(...delays)).toBeGreaterThan(300);
    expect(Math.min(...delays)).toBeLessThan(300);
  });
});
