import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceCasino } from '../src/index.js';
import { balanceBody, call, creditBody, debitBody, rollbackBody, setup } from './helpers.js';

let casino: ReferenceCasino;
let token: string;
afterEach(async () => casino?.close());

const validate = (launchToken: string, operatorId = 'op-usd') =>
  call(casino, '/wallet/validate-session', { operatorId, launchToken, gameType: 'dice' }, { operatorId });

describe('validate-session', () => {
  it('answers the player of a known token', async () => {
    ({ casino, token } = await setup());
    const res = await validate(token);
    expect(res).toMatchObject({ status: 200, json: { valid: true, playerRef: 'p1', displayName: 'Player One', currency: 'USD' } });
  });

  it('answers 200 {"valid": false} for an unknown or revoked token', async () => {
    ({ casino, token } = await setup());
    expect(await validate('lt_unknown')).toMatchObject({ status: 200, json: { valid: false } });
    casino.revokeLaunchToken(token);
    expect((await validate(token)).json).toEqual({ valid: false });
  });

  it('reports the currency chosen for the token (to provoke CURRENCY_MISMATCH / UNSUPPORTED_CURRENCY)', async () => {
    ({ casino, token } = await setup());
    const eur = casino.issueLaunchToken('p1', { currency: 'EUR' });
    expect((await validate(eur)).json).toMatchObject({ valid: true, currency: 'EUR' });
    casino.setTokenCurrency(token, 'FOO');
    expect((await validate(token)).json).toMatchObject({ valid: true, currency: 'FOO' });
    casino.setTokenCurrency(token, undefined);
    expect((await validate(token)).json).toMatchObject({ currency: 'USD' });
  });

  it('a token bound to another operator is not valid here', async () => {
    ({ casino } = await setup());
    casino.createPlayer({ playerRef: 'p1', balance: '5', currency: 'DOGE' });
    const dogeOnly = casino.issueLaunchToken('p1', { operatorId: 'op-doge' });
    expect((await validate(dogeOnly)).json).toEqual({ valid: false });
    expect((await validate(dogeOnly, 'op-doge')).json).toMatchObject({ valid: true, currency: 'DOGE' });
  });
});

describe('balance', () => {
  it('answers the playable balance in the session currency', async () => {
    ({ casino } = await setup());
    expect(await call(casino, '/wallet/balance', balanceBody)).toMatchObject({ status: 200, json: { balance: 100, currency: 'USD' } });
  });

  it('another currency is CURRENCY_MISMATCH; an unknown player INVALID_SESSION', async () => {
    ({ casino } = await setup());
    expect((await call(casino, '/wallet/balance', { ...balanceBody, currency: 'EUR' })).json).toMatchObject({ code: 'CURRENCY_MISMATCH' });
    expect((await call(casino, '/wallet/balance', { ...balanceBody, playerRef: 'nobody' })).json).toMatchObject({ code: 'INVALID_SESSION' });
  });
});

describe('debit and credit', () => {
  it('a debit takes the amount and answers casinoTransactionId, balance, currency', async () => {
    ({ casino, token } = await setup());
    const res = await call(casino, '/wallet/debit', debitBody(token, 1.25), { idempotencyKey: 'r1:debit' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['balance', 'casinoTransactionId', 'currency']);
    expect(res.json).toMatchObject({ balance: 98.75, currency: 'USD' });
    expect(casino.balanceOf('p1')).toBe(9875n);
    expect(casino.transactions()).toMatchObject([
      {
        type: 'debit',
        idempotencyKey: 'r1:debit',
        roundId: 'r1',
        playerRef: 'p1',
        amount: 125n,
        balanceAfter: 9875n,
        casinoTransactionId: res.json['casinoTransactionId'],
      },
    ]);
  });

  it('a repeated debit with the same key and body returns the original answer, no new transaction', async () => {
    ({ casino, token } = await setup());
    const first = await call(casino, '/wallet/debit', debitBody(token, 10), { idempotencyKey: 'r1:debit' });
    const again = await call(casino, '/wallet/debit', debitBody(token, 10), { idempotencyKey: 'r1:debit' });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(casino.transactions()).toHaveLength(1);
    expect(casino.balanceOf('p1')).toBe(9000n);
  });

  it('requests are compared by value: 10 and 10.00 are the same amount', async () => {
    ({ casino, token } = await setup());
    const first = await call(casino, '/wallet/debit', debitBody(token, '10'), { idempotencyKey: 'r1:debit' });
    const again = await call(casino, '/wallet/debit', debitBody(token, '10.00'), { idempotencyKey: 'r1:debit' });
    expect(again.text).toBe(first.text);
    expect(casino.transactions()).toHaveLength(1);
  });

  it('the same key with another body is 409 IDEMPOTENCY_CONFLICT', async () => {
    ({ casino, token } = await setup());
    await call(casino, '/wallet/debit', debitBody(token, 10), { idempotencyKey: 'r1:debit' });
    const other = await call(casino, '/wallet/debit', debitBody(token, 11), { idempotencyKey: 'r1:debit' });
    expect(other).toMatchObject({ status: 409, json: { code: 'IDEMPOTENCY_CONFLICT' } });
    const otherPath = await call(casino, '/wallet/credit', creditBody(token, 10), { idempotencyKey: 'r1:debit' });
    expect(otherPath).toMatchObject({ status: 409, json: { code: 'IDEMPOTENCY_CONFLICT' } });
    expect(casino.transactions()).toHaveLength(1);
  });

  it('insufficient balance is 400 INSUFFICIENT_FUNDS, remembered for the key', async () => {
    ({ casino, token } = await setup());
    const refused = await call(casino, '/wallet/debit', debitBody(token, 100.01), { idempotencyKey: 'r1:debit' });
    expect(refused).toMatchObject({ status: 400, json: { code: 'INSUFFICIENT_FUNDS' } });
    casino.createPlayer({ playerRef: 'p1', balance: '1000', currency: 'USD' });
    const replay = await call(casino, '/wallet/debit', debitBody(token, 100.01), { idempotencyKey: 'r1:debit' });
    expect(replay).toMatchObject({ status: 400, json: { code: 'INSUFFICIENT_FUNDS' } });
    expect(casino.transactions()).toEqual([]);
    expect((await call(casino, '/wallet/debit', debitBody(token, 100.01, 'r2'), { idempotencyKey: 'r2:debit' })).status).toBe(200);
  });

  it('a debit with a token of another player or no token is INVALID_SESSION, and the key stays free', async () => {
    ({ casino, token } = await setup());
    casino.createPlayer({ playerRef: 'p2', balance: '1', currency: 'USD' });
    const p2token = casino.issueLaunchToken('p2');
    expect((await call(casino, '/wallet/debit', debitBody(p2token, 1), { idempotencyKey: 'r1:debit' })).json).toMatchObject({ code: 'INVALID_SESSION' });
    expect((await call(casino, '/wallet/debit', debitBody(token, 1), { idempotencyKey: 'r1:debit' })).status).toBe(200);
  });

  it('credits add to the balance; a credit of 0 is recorded', async () => {
    ({ casino, token } = await setup());
    const win = await call(casino, '/wallet/credit', creditBody(token, 19.8), { idempotencyKey: 'r1:credit' });
    expect(win).toMatchObject({ status: 200, json: { balance: 119.8, currency: 'USD' } });
    const loss = await call(casino, '/wallet/credit', creditBody(token, 0, 'r2'), { idempotencyKey: 'r2:credit' });
    expect(loss).toMatchObject({ status: 200, json: { balance: 119.8 } });
    expect(casino.transactions().map((t) => [t.type, t.amount])).toEqual([
      ['credit', 1980n],
      ['credit', 0n],
    ]);
    const replay = await call(casino, '/wallet/credit', creditBody(token, 19.8), { idempotencyKey: 'r1:credit' });
    expect(replay.text).toBe(win.text);
    expect(casino.balanceOf('p1')).toBe(11980n);
  });

  it.each([
    ['more decimals than the currency has', '1.001'],
    ['a string amount', '"1.00"'],
    ['a negative amount', '-1'],
    ['a zero debit', '0'],
  ])('%s is VALIDATION_ERROR and claims no key', async (_name, amount) => {
    ({ casino, token } = await setup());
    const res = await call(casino, '/wallet/debit', debitBody(token, amount), { idempotencyKey: 'r1:debit' });
    expect(res).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
    expect((await call(casino, '/wallet/debit', debitBody(token, 1), { idempotencyKey: 'r1:debit' })).status).toBe(200);
  });

  it('malformed bodies are VALIDATION_ERROR; a foreign currency is CURRENCY_MISMATCH', async () => {
    ({ casino, token } = await setup());
    expect((await call(casino, '/wallet/debit', '{"amount":', { idempotencyKey: 'k1' })).json).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await call(casino, '/wallet/debit', '[]', { idempotencyKey: 'k1' })).json).toMatchObject({ code: 'VALIDATION_ERROR' });
    const otherOperator = debitBody(token, 1).replace('"op-usd"', '"op-doge"');
    expect((await call(casino, '/wallet/debit', otherOperator, { idempotencyKey: 'k1' })).json).toMatchObject({ code: 'VALIDATION_ERROR' });
    const eur = debitBody(token, 1).replace('"USD"', '"EUR"');
    expect(await call(casino, '/wallet/debit', eur, { idempotencyKey: 'k1' })).toMatchObject({ status: 400, json: { code: 'CURRENCY_MISMATCH' } });
    expect(casino.transactions()).toEqual([]);
  });
});

describe('rollback', () => {
  it('refunds the debit once', async () => {
    ({ casino, token } = await setup());
    await call(casino, '/wallet/debit', debitBody(token, 10), { idempotencyKey: 'r1:debit' });
    const rb = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10), { idempotencyKey: 'r1:debit:rollback' });
    expect(rb).toMatchObject({ status: 200, json: { balance: 100, currency: 'USD' } });
    const replay = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10), { idempotencyKey: 'r1:debit:rollback' });
    expect(replay.text).toBe(rb.text);
    const otherKey = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10), { idempotencyKey: 'another-rollback-key' });
    expect(otherKey).toMatchObject({ status: 200, json: { casinoTransactionId: rb.json['casinoTransactionId'], balance: 100 } });
    expect(casino.balanceOf('p1')).toBe(10000n);
    expect(casino.transactions().map((t) => [t.type, t.amount, t.idempotencyKey])).toEqual([
      ['debit', 1000n, 'r1:debit'],
      ['rollback', 1000n, 'r1:debit:rollback'],
    ]);
    // the original debit key still replays its own answer (SPEC.md wallet rule 5)
    expect((await call(casino, '/wallet/debit', debitBody(token, 10), { idempotencyKey: 'r1:debit' })).status).toBe(200);
    expect(casino.balanceOf('p1')).toBe(10000n);
  });

  it('of a debit never received succeeds with nothing to undo, and the late debit is refused', async () => {
    ({ casino, token } = await setup());
    const rb = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10), { idempotencyKey: 'r1:debit:rollback' });
    expect(rb).toMatchObject({ status: 200, json: { balance: 100, currency: 'USD' } });
    expect(casino.transactions()).toMatchObject([{ type: 'rollback', amount: 0n, debitIdempotencyKey: 'r1:debit' }]);
    const late = await call(casino, '/wallet/debit', debitBody(token, 10), { idempotencyKey: 'r1:debit' });
    expect(late).toMatchObject({ status: 400, json: { code: 'DEBIT_ROLLED_BACK' } });
    expect(casino.balanceOf('p1')).toBe(10000n);
    expect(casino.transactions()).toHaveLength(1);
  });

  it('of a refused debit succeeds with nothing to undo; the debit keeps its refusal', async () => {
    ({ casino, token } = await setup());
    await call(casino, '/wallet/debit', debitBody(token, 500), { idempotencyKey: 'r1:debit' });
    const rb = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 500), { idempotencyKey: 'r1:debit:rollback' });
    expect(rb.status).toBe(200);
    expect((await call(casino, '/wallet/debit', debitBody(token, 500), { idempotencyKey: 'r1:debit' })).json).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(casino.balanceOf('p1')).toBe(10000n);
  });

  it('must name the debit it undoes (amount, round, player)', async () => {
    ({ casino, token } = await setup());
    await call(casino, '/wallet/debit', debitBody(token, 10), { idempotencyKey: 'r1:debit' });
    const wrongAmount = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 9), { idempotencyKey: 'r1:debit:rollback' });
    expect(wrongAmount).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
    const wrongRound = await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10, 'r9'), { idempotencyKey: 'r1:debit:rollback' });
    expect(wrongRound).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
    expect((await call(casino, '/wallet/rollback', rollbackBody('r1:debit', 10), { idempotencyKey: 'r1:debit:rollback' })).status).toBe(200);
  });
});

describe('exact amounts', () => {
  it('keeps a 15-digit DOGE balance exact in and out', async () => {
    ({ casino } = await setup());
    casino.createPlayer({ playerRef: 'whale', balance: '123456789012345.12345678', currency: 'DOGE' });
    const dogeToken = casino.issueLaunchToken('whale');
    const body = (amount: string, roundId: string) =>
      `{"operatorId":"op-doge","playerRef":"whale","launchToken":"${dogeToken}","gameType":"limbo","roundId":"${roundId}","amount":${amount},"currency":"DOGE"}`;
    const balance = await call(
      casino,
      '/wallet/balance',
      { operatorId: 'op-doge', playerRef: 'whale', gameType: 'limbo', currency: 'DOGE' },
      { operatorId: 'op-doge' },
    );
    expect(balance.text).toBe('{"balance":123456789012345.12345678,"currency":"DOGE"}');
    const debit = await call(casino, '/wallet/debit', body('1e-8', 'd1'), { operatorId: 'op-doge', idempotencyKey: 'd1:debit' });
    expect(debit.text).toContain('"balance":123456789012345.12345677,');
    const credit = await call(casino, '/wallet/credit', body('99999999999999.99999999', 'd1'), { operatorId: 'op-doge', idempotencyKey: 'd1:credit' });
    expect(credit.text).toContain('"balance":223456789012345.12345676,');
    expect(casino.balanceOf('whale', 'DOGE')).toBe(22345678901234512345676n);
    const tooFine = await call(casino, '/wallet/debit', body('0.000000001', 'd2'), { operatorId: 'op-doge', idempotencyKey: 'd2:debit' });
    expect(tooFine).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
  });
});
