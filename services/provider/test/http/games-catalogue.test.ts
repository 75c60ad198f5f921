/**
 * GET /api/games?operatorId=…: the operator's enabled games with name, kind, theoretical RTP
 * (from the code the RTP script checks), the profile's limits in its currency (exact), launch
 * modes, languages and a thumbnail the provider serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blackjackTheory } from '@gp/game-core/games';
import { SUPPORTED_LANGUAGES } from '@gp/game-core/games';
import { diceDistribution, kenoDistribution, mean, plinkoDistribution } from '@gp/game-core/games';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  const put = (id: string, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/admin/operators/${id}`,
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload: JSON.stringify({ callbackBaseUrl: 'http://127.0.0.1:9/casino', sharedSecret: 'catalogue-secret-0123456789', ...body }).replace(
        /"@@([0-9.e-]+)"/g,
        '$1',
      ),
    });
  expect(
    (await put('cat-btc', { currency: 'BTC', minBet: '@@0.000001', maxBet: '@@0.5', stakeStep: '@@1e-8', maxPayout: '@@2.5', enabledGames: ['mines', 'dice'] }))
      .statusCode,
  ).toBe(201);
  expect((await put('cat-off', { currency: 'USD', minBet: 1, stakeStep: 1, maxPayout: 100, enabled: false })).statusCode).toBe(201);
});
afterAll(async () => t?.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { host: 'games.example' } });
const pct = (x: number) => Math.round(x * 10_000) / 100;

describe('GET /api/games', () => {
  it("lists the operator's enabled games, in the game order, with limits in its currency written exactly", async () => {
    const res = await get('/api/games?operatorId=cat-btc');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.body).toContain('"minBet":0.000001,"maxBet":0.5,"stakeStep":0.00000001,"maxPayout":2.5');
    const body = res.json();
    expect(body).toMatchObject({ operatorId: 'cat-btc', currency: 'BTC', decimals: 8 });
    expect(body.games.map((g: { gameType: string }) => g.gameType)).toEqual(['dice', 'mines']);
    expect(body.games[0]).toMatchObject({ name: 'Dice', kind: 'settled', launchModes: ['single', 'lobby'], languages: [...SUPPORTED_LANGUAGES] });
    expect(body.games[1]).toMatchObject({ name: 'Mines', kind: 'active-round' });
    expect(SUPPORTED_LANGUAGES).toEqual(['en', 'es', 'pt-BR', 'de']);
  });

  it('gives each game its theoretical RTP from the distributions the RTP script checks; per table for plinko and keno', async () => {
    const games = (await get('/api/games?operatorId=demo-usd')).json().games as {
      gameType: string;
      kind: string;
      rtp: { value: number; min: number; max: number; params: object; variants?: { params: { rows?: number; risk: string; picks?: number }; value: number }[] };
    }[];
    expect(games.map((g) => [g.gameType, g.kind])).toEqual([
      ['dice', 'settled'],
      ['limbo', 'settled'],
      ['plinko', 'settled'],
      ['keno', 'settled'],
      ['mines', 'active-round'],
      ['blackjack', 'active-round'],
    ]);
    const by = Object.fromEntries(games.map((g) => [g.gameType, g.rtp]));
    for (const g of games) {
      expect(g.rtp.min, g.gameType).toBeLessThanOrEqual(g.rtp.value);
      expect(g.rtp.value, g.gameType).toBeLessThanOrEqual(g.rtp.max);
      expect(g.rtp.min, g.gameType).toBeGreaterThan(97);
      expect(g.rtp.max, g.gameType).toBeLessThan(100);
    }
    expect(by.dice).toMatchObject({ params: { target: 50.5, direction: 'over' }, value: pct(mean(diceDistribution({ target: 50.5, direction: 'over' }))) });
    expect(by.blackjack!.value).toBe(pct(blackjackTheory()));
    expect(by.plinko!.variants).toHaveLength(4 * 9);
    expect(by.plinko!.variants!.find((v) => v.params.rows === 12 && v.params.risk === 'high')!.value).toBe(
      pct(mean(plinkoDistribution({ rows: 12, risk: 'high' }))),
    );
    expect(by.keno!.variants).toHaveLength(4 * 10);
    expect(by.keno!.variants!.find((v) => v.params.picks === 3 && v.params.risk === 'medium')!.value).toBe(
      pct(mean(kenoDistribution({ risk: 'medium', picks: 3 }))),
    );
    for (const g of ['dice', 'limbo', 'mines', 'blackjack']) expect(by[g]!.variants, g).toBeUndefined();
  });

  it('serves each thumbnail as an immutable, nosniff SVG under a content-hashed URL', async () => {
    const games = (await get('/api/games?operatorId=demo-usd')).json().games as { gameType: string; thumbnailUrl: string }[];
    for (const g of games) {
      const url = new URL(g.thumbnailUrl);
      // Never the Host header (games.example here): PUBLIC_BASE_URL, else the listen address (issue 23 defect 5c).
      expect(url.origin).toBe(`http://${t.config.host}:${t.config.port}`);
      expect(url.pathname).toBe(`/static/games/${g.gameType}.svg`);
      expect(url.searchParams.get('v')).toMatch(/^[0-9a-f]{12}$/);
      const svg = await get(`${url.pathname}${url.search}`);
      expect(svg.statusCode).toBe(200);
      expect(svg.headers['content-type']).toBe('image/svg+xml');
      expect(svg.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(svg.headers['x-content-type-options']).toBe('nosniff');
      expect(svg.headers['content-security-policy']).toContain("default-src 'none'");
      expect(svg.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(svg.body).not.toMatch(/<script|on\w+=|href=/i);
    }
    const missing = await get('/static/games/poker.svg');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    expect((await get('/static/games/..%2Fpackage.json')).statusCode).toBe(404);
  });

  it('unknown or disabled operator: 404 NOT_FOUND; a bad query: 400 VALIDATION_ERROR', async () => {
    for (const id of ['nobody', 'cat-off']) {
      const res = await get(`/api/games?operatorId=${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'NOT_FOUND' });
    }
    for (const q of ['', '?operatorId=', `?operatorId=${'x'.repeat(201)}`]) {
      const res = await get(`/api/games${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
  });

  it('is in /openapi.json with its query and answer schemas (the thumbnails are not)', async () => {
    const doc = (await get('/openapi.json')).json();
    const op = doc.paths['/api/games'].get;
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'operatorId', in: 'query', required: true })]);
    const answer = op.responses['200'].content['application/json'].schema;
    expect(answer.properties.games.items.required).toEqual(
      expect.arrayContaining(['gameType', 'name', 'kind', 'rtp', 'minBet', 'stakeStep', 'launchModes', 'languages', 'thumbnailUrl']),
    );
    expect(answer.properties.games.items.properties.minBet.type).toBe('number');
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/static'))).toBe(false);
    expect(doc.paths['/wallet-openapi.json']).toBeDefined();
  });
});
