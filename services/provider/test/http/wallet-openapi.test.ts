/**
 * GET /wallet-openapi.json: an OpenAPI 3.1 document of the wallet interface. It validates as
 * OpenAPI 3.1, every request the provider really sends validates against it, and so does every
 * answer of the reference casino (successes and refusals) over real HTTP.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { signRequest } from '@gp/reference-casino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretOf, startTap, startWorld, type Player, type Tap, type World } from '../helpers/casino.js';
import { newKey } from '../helpers/casino.js';

let w: World;
let tap: Tap;
let p: Player;
let doc: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  tap = await startTap();
  w = await startWorld([{ operatorId: 'op-wo', callbackBaseUrl: `${tap.url}/casino-a` }]);
  tap.target = w.casino.url;
  p = await w.player('wo-1');
  const res = await w.call('GET', '/wallet-openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  ajv.addSchema(doc, 'wallet');
});
afterAll(async () => {
  await w?.close();
  await tap?.close();
});

const pointer = (...parts: string[]) => `wallet#/${parts.map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

function expectValid(ref: string, value: unknown, what: string): void {
  const ok = ajv.validate({ $ref: ref }, value);
  expect(ok, `${what}: ${ajv.errorsText(ajv.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

function expectAnswerValid(path: string, status: number, text: string): void {
  const responses = doc.paths[path].post.responses as Record<string, unknown>;
  const key = status in responses ? String(status) : `${String(status)[0]}XX`;
  expect(responses, `${path} documents ${status}`).toHaveProperty(key);
  expectValid(pointer('paths', path, 'post', 'responses', key, 'content', 'application/json', 'schema'), JSON.parse(text), `${path} answer ${status}`);
}

describe('the wallet interface as OpenAPI 3.1', () => {
  it('is a valid OpenAPI 3.1 document with the five callbacks, their signed headers and the signature recipe', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(['/wallet/balance', '/wallet/credit', '/wallet/debit', '/wallet/rollback', '/wallet/validate-session']);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
      const headers = (item.post.parameters as { name: string; in: string; required: boolean }[])
        .filter((h) => h.in === 'header' && h.required)
        .map((h) => h.name);
      const money = !path.endsWith('validate-session') && !path.endsWith('balance');
      expect(headers.sort(), path).toEqual(['X-Nonce', 'X-Operator-Id', 'X-Signature', 'X-Timestamp', ...(money ? ['X-Idempotency-Key'] : [])].sort());
      expect(Object.keys(item.post.responses), path).toEqual(expect.arrayContaining(['200', '400', '401', ...(money ? ['409'] : [])]));
    }
    expect(doc.info.description).toContain('METHOD + "\\n" + PATH + "\\n" + X-Timestamp + "\\n" + X-Nonce + "\\n" + RAW_BODY');
    expect(doc.components.securitySchemes.hmacSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Signature' });
    expect(doc.components.schemas.WalletError.properties.code.examples).toEqual(
      expect.arrayContaining(['INSUFFICIENT_FUNDS', 'SIGNATURE_STALE', 'IDEMPOTENCY_CONFLICT']),
    );
  });

  it('every request the provider sends (settled bets, a rolled-back bet, Mines, a lobby session) and every answer validate against it', async () => {
    expect((await w.bet(p, 'dice', 1, { target: 50, direction: 'over' })).status).toBe(200);
    expect((await w.bet(p, 'dice', 1, { target: 99, direction: 'over' })).body.code).toBe('INVALID_GAME_PARAMS'); // debit, then rollback
    const start = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, mineCount: 24, idempotencyKey: newKey('m') });
    expect(start.status, start.text).toBe(200);
    await w.call('POST', `/api/mines/rounds/${start.body.roundId}/reveal`, { sessionId: p.sessionId, tile: 0, idempotencyKey: newKey('r') });
    await w.newSession(p, { launchMode: 'lobby' });

    const seen = new Set<string>();
    for (const r of tap.requests) {
      const path = r.url.replace(/^\/casino-a/, '');
      seen.add(path);
      const op = doc.paths[path].post;
      expectValid(pointer('paths', path, 'post', 'requestBody', 'content', 'application/json', 'schema'), JSON.parse(r.body), `${path} request`);
      for (const param of op.parameters as { name: string; required: boolean; schema: object }[]) {
        const value = r.headers[param.name.toLowerCase()];
        if (value === undefined) {
          expect(param.required, `${path} sends ${param.name}`).toBe(false);
          continue;
        }
        expect(ajv.validate(param.schema, value), `${path} header ${param.name}: ${String(value)}`).toBe(true);
      }
      expect(r.status).toBe(200);
      expectAnswerValid(path, r.status!, r.response!);
    }
    expect([...seen].sort()).toEqual(['/wallet/balance', '/wallet/credit', '/wallet/debit', '/wallet/rollback', '/wallet/validate-session']);
  });

  it("the reference casino's refusals validate against the documented error answers", async () => {
    const send = async (path: string, body: object, o: { key?: string; timestamp?: number } = {}) => {
      const raw = JSON.stringify(body);
      const headers = signRequest({
        operatorId: 'op-wo',
        secret: secretOf('op-wo'),
        method: 'POST',
        path,
        body: raw,
        ...(o.key ? { idempotencyKey: o.key } : {}),
        ...(o.timestamp ? { timestamp: o.timestamp } : {}),
      });
      const res = await fetch(`${w.casino.url}${path}`, { method: 'POST', headers, body: raw });
      return { status: res.status, text: await res.text() };
    };
    const money = (roundId: string, amount: number, currency = 'USD') => ({
      operatorId: 'op-wo',
      playerRef: p.playerRef,
      launchToken: p.launchToken,
      gameType: 'dice',
      roundId,
      amount,
      currency,
    });
    const cases = [
      [await send('/wallet/validate-session', { operatorId: 'op-wo', launchToken: 'lt_unknown', gameType: 'dice' }), 200],
      [await send('/wallet/debit', money('wo-r1', 1_000_000), { key: 'wo-r1:debit' }), 400, 'INSUFFICIENT_FUNDS'],
      [await send('/wallet/debit', money('wo-r2', 1, 'EUR'), { key: 'wo-r2:debit' }), 400, 'CURRENCY_MISMATCH'],
      [
        await send(
          '/wallet/balance',
          { operatorId: 'op-wo', playerRef: p.playerRef, gameType: 'dice', currency: 'USD' },
          { timestamp: Math.floor(Date.now() / 1000) - 3600 },
        ),
        401,
        'SIGNATURE_STALE',
      ],
      [await send('/wallet/credit', money('wo-r3', 1), { key: 'wo-r3:credit' }), 200],
      [await send('/wallet/credit', money('wo-r3', 2), { key: 'wo-r3:credit' }), 409, 'IDEMPOTENCY_CONFLICT'],
      [
        await send(
          '/wallet/rollback',
          {
            operatorId: 'op-wo',
            playerRef: p.playerRef,
            gameType: 'dice',
            roundId: 'wo-r4',
            debitIdempotencyKey: 'wo-r4:debit',
            amount: 1,
            currency: 'USD',
            reason: 'debit timed out',
          },
          { key: 'wo-r4:debit:rollback' },
        ),
        200,
      ],
      [await send('/wallet/debit', money('wo-r4', 1), { key: 'wo-r4:debit' }), 400, 'DEBIT_ROLLED_BACK'],
    ] as const;
    const paths = [
      '/wallet/validate-session',
      '/wallet/debit',
      '/wallet/debit',
      '/wallet/balance',
      '/wallet/credit',
      '/wallet/credit',
      '/wallet/rollback',
      '/wallet/debit',
    ];
    cases.forEach(([answer, status, code], i) => {
      expect(answer.status, answer.text).toBe(status);
      if (code) expect(JSON.parse(answer.text).code).toBe(code);
      expectAnswerValid(paths[i]!, answer.status, answer.text);
    });
  });
});
