import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { answerText, jsonNumber, parseJson, stringifyAnswer, stringifyJson } from '../../src/infra/json.js';

let t: TestApp;
let sessionId: string;
let launchToken: string;
beforeAll(async () => {
  t = await createTestApp();
  const launch = await t.app.inject({
    method: 'POST',
    url: '/sandbox/launch',
    payload: { operatorId: 'demo-usd', playerRef: 'p1', gameType: 'dice', launchMode: 'lobby' },
  });
  const session = await t.app.inject({
    method: 'POST',
    url: '/api/sessions',
    payload: { operatorId: 'demo-usd', launchToken: launch.json().launchToken, launchMode: 'lobby' },
  });
  sessionId = session.json().sessionId;
  launchToken = launch.json().launchToken;
});
afterAll(async () => t?.close());

describe('bets against the demo casino', () => {
  it('sends the answer as stored with its key, written once: the replay answers the same answer (issue 25)', async () => {
    const payload = { sessionId, gameType: 'dice', amount: 2, idempotencyKey: 'k-once', params: { target: 50, direction: 'over' } };
    const first = await t.app.inject({ method: 'POST', url: '/api/bets', payload });
    expect(first.statusCode, first.body).toBe(200);
    // lossless JSON as stringifyJson writes it
    expect(first.body).toBe(stringifyJson(parseJson(first.body)));
    const replay = await t.app.inject({ method: 'POST', url: '/api/bets', payload });
    expect(replay.statusCode).toBe(200);
    expect(parseJson(replay.body)).toEqual(parseJson(first.body));
  });

  it('stringifyAnswer remembers the text for the reply; other values are written when sent', () => {
    const answer = { a: 1, b: [jsonNumber('0.10')] };
    const text = stringifyAnswer(answer);
    expect(text).toBe('{"a":1,"b":[0.10]}');
    expect(answerText(answer)).toBe(text);
    expect(answerText({ a: 1, b: [jsonNumber('0.10')] })).toBe(text);
    expect(answerText({ n: 10n })).toBe('{"n":10}');
    expect(answerText(null)).toBe('null');
  });

  it.each([
    ['dice', { target: 50, direction: 'over' }],
    ['limbo', { target: 2 }],
    ['plinko', { rows: 8, risk: 'high' }],
    ['keno', { picks: [1, 2, 3, 4, 5], risk: 'classic' }],
  ])('settles a %s bet end to end', async (gameType, params) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/bets',
      payload: { sessionId, gameType, amount: 1.5, idempotencyKey: `k-${gameType}`, params },
    });
    expect(res.statusCode, res.body).toBe(200);
    const bet = res.json();
    expect(bet.roundStatus).toBe('settled');
    expect(bet.bet).toMatchObject({ gameType, amount: 1.5, currency: 'USD' });
    const get = await t.app.inject({ method: 'GET', url: `/api/bets/${bet.roundId}` });
    expect(get.statusCode).toBe(200);
    const stored = get.json();
    expect(stored.casinoCallbackAudit.map((a: { path: string }) => a.path)).toEqual(['/wallet/debit', '/wallet/credit']);
    expect(get.body).not.toContain(launchToken);
    expect(stored.casinoCallbackAudit[0].requestBody.launchToken).toBe('[redacted]');
  });
});
