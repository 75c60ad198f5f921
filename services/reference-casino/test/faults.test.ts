import { afterEach, describe, expect, it } from 'vitest';
import { validateFaultRules, type ReferenceCasino } from '../src/index.js';
import { balanceBody, call, creditBody, debitBody, rollbackBody, setup } from './helpers.js';

let casino: ReferenceCasino;
let token: string;
afterEach(async () => casino?.close());

const debit = (key = 'r1:debit', o: { signal?: AbortSignal; amount?: number } = {}) =>
  call(casino, '/wallet/debit', debitBody(token, o.amount ?? 10, key.split(':')[0]), { idempotencyKey: key, ...(o.signal ? { signal: o.signal } : {}) });
const until = async (check: () => boolean, ms = 2000) => {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('fault: status', () => {
  it('answers the status with a JSON code, applies nothing, then stops after `times`', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 503, times: 1 }]);
    expect(await debit()).toMatchObject({ status: 503, json: { code: 'CASINO_UNAVAILABLE' } });
    expect(casino.transactions()).toEqual([]);
    const retry = await debit();
    expect(retry.status).toBe(200);
    expect(casino.transactions()).toHaveLength(1);
    expect(casino.requests().map((r) => [r.status, r.fault])).toEqual([
      [503, 'status'],
      [200, undefined],
    ]);
    expect(casino.faults()).toMatchObject([{ hits: 1 }]);
  });

  it('429 answers RATE_LIMITED; a custom code is used as given', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([
      { path: '/wallet/balance', kind: 'status', status: 429, times: 1 },
      { path: '/wallet/balance', kind: 'status', status: 502, code: 'UPSTREAM_DOWN', times: 1 },
    ]);
    expect(await call(casino, '/wallet/balance', balanceBody)).toMatchObject({ status: 429, json: { code: 'RATE_LIMITED' } });
    expect(await call(casino, '/wallet/balance', balanceBody)).toMatchObject({ status: 502, json: { code: 'UPSTREAM_DOWN' } });
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(200);
  });
});

describe('fault: drop', () => {
  it('destroys the socket without an answer and applies nothing', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '*', kind: 'drop', times: 1 }]);
    await expect(debit()).rejects.toThrow();
    expect(casino.transactions()).toEqual([]);
    expect(casino.requests()).toMatchObject([{ path: '/wallet/debit', idempotencyKey: 'r1:debit', status: null, fault: 'drop' }]);
    expect((await debit()).status).toBe(200);
  });
});

describe('fault: delay', () => {
  it('answers late but applies the money; a retry during the wait is applied once', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/debit', kind: 'delay', ms: 300, times: 1 }]);
    // the provider gives up after 50 ms (its timeout) and retries with the same key
    await expect(debit('r1:debit', { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    expect(casino.transactions()).toEqual([]);
    const retry = await debit();
    expect(retry.status).toBe(200);
    await until(() => casino.requests().length === 2); // the delayed attempt has now been processed too
    expect(casino.transactions()).toHaveLength(1);
    expect(casino.balanceOf('p1')).toBe(9000n);
    expect(casino.requests().map((r) => [r.status, r.fault])).toEqual([
      [200, undefined],
      [200, 'delay'],
    ]);
  });

  it('a slow debit overtaken by its rollback is refused when it finally lands', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/debit', kind: 'delay', ms: 200, times: 1 }]);
    const slow = debit();
    const rb = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10), { idempotencyKey: 'r1:debit:rollback' });
    expect(rb.status).toBe(200);
    expect(await slow).toMatchObject({ status: 400, json: { code: 'DEBIT_ROLLED_BACK' } });
    expect(casino.balanceOf('p1')).toBe(10000n);
  });

  it('delay-then-drop waits, drops, and applies nothing', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/credit', kind: 'delay-then-drop', ms: 100 }]);
    const started = Date.now();
    await expect(call(casino, '/wallet/credit', creditBody(token, 5), { idempotencyKey: 'r1:credit' })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(casino.transactions()).toEqual([]);
  });
});

describe('fault: ambiguous', () => {
  it('applies the debit, answers 500; the retry replays the same transaction', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/debit', kind: 'ambiguous', times: 1 }]);
    expect(await debit()).toMatchObject({ status: 500, json: { code: 'INTERNAL_ERROR' } });
    expect(casino.balanceOf('p1')).toBe(9000n);
    const retry = await debit();
    expect(retry.json['casinoTransactionId']).toBe(casino.transactions()[0]?.casinoTransactionId);
    expect(casino.transactions()).toHaveLength(1);
  });

  it("mode 'drop' applies the credit and destroys the socket", async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/credit', kind: 'ambiguous', mode: 'drop', times: 1 }]);
    await expect(call(casino, '/wallet/credit', creditBody(token, 5), { idempotencyKey: 'r1:credit' })).rejects.toThrow();
    expect(casino.balanceOf('p1')).toBe(10500n);
    expect(casino.requests()).toMatchObject([{ status: null, fault: 'ambiguous' }]);
  });

  it("mode 'late' applies the debit at once and answers only after `ms`: a caller that gave up sees nothing, its retry replays", async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/debit', kind: 'ambiguous', mode: 'late', ms: 300, times: 1 }]);
    await expect(debit('r1:debit', { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    expect(casino.transactions()).toHaveLength(1); // applied before the caller's timeout
    expect(casino.balanceOf('p1')).toBe(9000n);
    const retry = await debit();
    expect(retry.json['casinoTransactionId']).toBe(casino.transactions()[0]?.casinoTransactionId);
    expect(casino.transactions()).toHaveLength(1);
  });

  it("mode 'late' needs ms", () => {
    expect(() => validateFaultRules([{ path: '*', kind: 'ambiguous', mode: 'late' }])).toThrow(/ms is required/);
  });

  it('an ambiguous debit can be rolled back', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/debit', kind: 'ambiguous', status: 502 }]);
    expect((await debit()).status).toBe(502);
    expect((await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10), { idempotencyKey: 'r1:debit:rollback' })).status).toBe(200);
    expect(casino.balanceOf('p1')).toBe(10000n);
  });
});

describe('fault: refuse', () => {
  it('answers 400 with the code, applies nothing and leaves the key free', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/debit', kind: 'refuse', code: 'RG_DAILY_LOSS_LIMIT', times: 1 }]);
    expect(await debit()).toMatchObject({ status: 400, json: { code: 'RG_DAILY_LOSS_LIMIT' } });
    expect(casino.transactions()).toEqual([]);
    expect((await debit()).status).toBe(200);
  });

  it('can refuse validate-session too (any status 4xx)', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '/wallet/validate-session', kind: 'refuse', code: 'PLAYER_SELF_EXCLUDED', status: 403 }]);
    const res = await call(casino, '/wallet/validate-session', { operatorId: 'op-usd', launchToken: token, gameType: 'dice' });
    expect(res).toMatchObject({ status: 403, json: { code: 'PLAYER_SELF_EXCLUDED' } });
  });
});

describe('shutdown', () => {
  it('close() does not wait for delayed requests; they are dropped unapplied', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '*', kind: 'delay', ms: 60_000 }]);
    const pending = debit();
    await until(() => casino.faults()[0]?.hits === 1);
    await casino.close();
    await expect(pending).rejects.toThrow();
    expect(casino.transactions()).toEqual([]);
  });
});

describe('fault matching', () => {
  it('matches by operator', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '*', operatorId: 'op-doge', kind: 'status', status: 500 }]);
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(200);
    casino.setFaults([{ path: '*', operatorId: 'op-usd', kind: 'status', status: 500 }]);
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(500);
    casino.clearFaults();
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(200);
  });

  it('does not hit requests refused by the signature check', async () => {
    ({ casino, token } = await setup());
    casino.setFaults([{ path: '*', kind: 'status', status: 503, times: 1 }]);
    expect((await call(casino, '/wallet/balance', balanceBody, { secret: 'wrong' })).status).toBe(401);
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(503);
  });

  it('probability draws from a seeded RNG: the same seed gives the same run', async () => {
    ({ casino, token } = await setup());
    const run = async (seed: number) => {
      casino.setFaults([{ path: '/wallet/balance', kind: 'status', status: 503, probability: 0.5 }], seed);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await call(casino, '/wallet/balance', balanceBody)).status);
      return statuses;
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect(a.filter((s) => s === 503).length).toBeGreaterThan(3);
    expect(a.filter((s) => s === 200).length).toBeGreaterThan(3);
    casino.setFaults([{ path: '*', kind: 'drop', probability: 0 }]);
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(200);
  });

  it('rejects malformed rules', async () => {
    ({ casino } = await setup());
    expect(() => casino.setFaults([{ path: 'debit', kind: 'drop' }])).toThrow(/path/);
    expect(() => casino.setFaults([{ path: '*', kind: 'refuse' } as never])).toThrow(/code/);
    expect(() => casino.setFaults([{ path: '*', kind: 'drop', probability: 2 }])).toThrow(/probability/);
    expect(() => casino.setFaults([{ path: '*', kind: 'status', status: 400 }])).toThrow(/429 or 5xx/);
  });
});
