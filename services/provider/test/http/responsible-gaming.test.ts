/**
 * Responsible gaming and jurisdictions (issue 27) end to end against the reference casino over
 * real HTTP: the profile field (admin API, console API, public profile read), the effective rules
 * of a session chosen by the casino's `jurisdiction` (full code first, then its country),
 * AUTOBET_DISABLED and ROUND_TOO_FAST refused before any wallet call and storing nothing (pacing
 * across sessions and across two pods on one Redis), and the casino's refusal text passed on as
 * `casinoMessage` (never for protocol refusals).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';
import { newKey, secretOf, startWorld, type Player, type World } from '../helpers/casino.js';
import { staffSession } from '../admin/helpers.js';
import { createInProcessStore } from '../../src/infra/kv.js';
import { cleanCasinoText } from '../../src/wallet/wallet-client.js';

const OP = 'rg-usd';
const RULES = {
  autobet: 'allowed',
  autobetMaxRounds: null,
  autobetRequiresLossLimit: false,
  minRoundIntervalMs: 0,
  realityCheckMinutes: null,
  showNetPosition: false,
  showElapsedTime: false,
};
const PROFILE_RG = {
  ...RULES,
  realityCheckMinutes: 120,
  jurisdictions: {
    gb: {
      autobet: 'limited',
      autobetMaxRounds: 100,
      autobetRequiresLossLimit: true,
      minRoundIntervalMs: 2500,
      realityCheckMinutes: 60,
      showNetPosition: true,
      showElapsedTime: true,
    },
    CA: { autobet: 'disabled' },
    'CA-ON': { showNetPosition: true },
    FR: { autobet: 'disabled' },
    MT: { minRoundIntervalMs: 60_000 },
    NL: { minRoundIntervalMs: 300 },
  },
};

let w: World;
let rgProfile: Record<string, unknown>;

beforeAll(async () => {
  w = await startWorld([{ operatorId: OP }, { operatorId: 'rg-plain' }]);
  const current = await w.call('GET', `/api/admin/operators/${OP}`, undefined, adminHeaders);
  expect(current.status).toBe(200);
  rgProfile = {
    currency: 'USD',
    callbackBaseUrl: w.casino.url,
    sharedSecret: secretOf(OP),
    minBet: 0.1,
    stakeStep: 0.01,
    maxPayout: 10_000,
    responsibleGaming: PROFILE_RG,
  };
  const put = await w.call('PUT', `/api/admin/operators/${OP}`, rgProfile, adminHeaders);
  expect(put.status, put.text).toBe(200);
});
afterAll(async () => {
  await w?.close();
});

/** A casino player with a jurisdiction (and refusals), and a session. */
async function rgPlayer(
  playerRef: string,
  settings: Record<string, unknown> = {},
  opts: { operatorId?: string; gameType?: string; launchMode?: 'single' | 'lobby' } = {},
) {
  const operatorId = opts.operatorId ?? OP;
  w.casino.createPlayer({ playerRef, balance: '1000', currency: 'USD', responsibleGaming: settings });
  const launchToken = w.casino.issueLaunchToken(playerRef, { operatorId });
  const s = await w.call('POST', '/api/sessions', { operatorId, launchToken, gameType: opts.gameType ?? 'dice', launchMode: opts.launchMode ?? 'single' });
  return { s, player: { playerRef, operatorId, currency: 'USD', sessionId: String(s.body.sessionId), launchToken } satisfies Player };
}

const diceBet = (p: Player, extra: Record<string, unknown> = {}, key = newKey('rg')) =>
  w.call('POST', '/api/bets', {
    sessionId: p.sessionId,
    gameType: 'dice',
    amount: 1,
    idempotencyKey: key,
    params: { target: 50.5, direction: 'over' },
    ...extra,
  });

const roundsOf = async (playerRef: string) =>
  Number((await w.t.services.db('rounds').where({ player_ref: playerRef }).count<{ n: string }[]>({ n: '*' }))[0]!.n);
const debitsOf = (playerRef: string) => w.casino.transactions().filter((tx) => tx.playerRef === playerRef && tx.type === 'debit').length;
const debitRequests = () => w.casino.requests().filter((r) => r.path === '/wallet/debit').length;

describe('the OpenAPI document', () => {
  it('names the two refusals, casinoMessage, the rules of a session, autobet on round starts and the profile field', async () => {
    const doc = await w.call('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    for (const name of [
      'AUTOBET_DISABLED',
      'ROUND_TOO_FAST',
      'casinoMessage',
      'minRoundIntervalMs',
      'realityCheckMinutes',
      'showNetPosition',
      'showElapsedTime',
      'autobetRequiresLossLimit',
      'autobetMaxRounds',
      'jurisdictions',
      'jurisdiction',
      'responsibleGaming',
    ]) {
      expect(doc.text, name).toContain(`"${name}"`);
    }
    const paths = doc.body.paths as Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
          responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }>;
        }
      >
    >;
    for (const path of ['/api/bets', '/api/mines/rounds', '/api/blackjack/rounds']) {
      expect(Object.keys(paths[path]!.post!.requestBody!.content['application/json']!.schema.properties ?? {}), path).toContain('autobet');
    }
    // the session answer is the named schema Session (a component since issue 24)
    const session = paths['/api/sessions']!.post!.responses['200']!.content!['application/json']!.schema as {
      $ref?: string;
      properties?: Record<string, unknown>;
    };
    const components = (doc.body.components as { schemas: Record<string, { properties?: Record<string, unknown> }> }).schemas;
    expect(Object.keys((session.$ref ? components[session.$ref.replace('#/components/schemas/', '')] : session)?.properties ?? {})).toContain('rules');
  });
});

describe('the profile field responsibleGaming', () => {
  it('is stored through the admin API with its defaults, jurisdiction codes upper-cased, and read back by the admin and public reads', async () => {
    const admin = await w.call('GET', `/api/admin/operators/${OP}`, undefined, adminHeaders);
    expect(admin.body.responsibleGaming).toEqual({
      ...PROFILE_RG,
      jurisdictions: {
        GB: PROFILE_RG.jurisdictions.gb,
        CA: { autobet: 'disabled' },
        'CA-ON': { showNetPosition: true },
        FR: { autobet: 'disabled' },
        MT: { minRoundIntervalMs: 60_000 },
        NL: { minRoundIntervalMs: 300 },
      },
    });
    const pub = await w.call('GET', `/api/operators/${OP}/config`);
    expect((pub.body.responsibleGaming as { jurisdictions: Record<string, unknown> }).jurisdictions.GB).toEqual(PROFILE_RG.jurisdictions.gb);
    // absent: null, today's behaviour
    expect((await w.call('GET', '/api/operators/rg-plain/config')).body.responsibleGaming).toBeNull();
  });

  it('refuses values outside the rules with VALIDATION_ERROR', async () => {
    for (const bad of [
      { minRoundIntervalMs: 60_001 },
      { autobet: 'sometimes' },
      { autobetMaxRounds: 0 },
      { realityCheckMinutes: 1.5 },
      { jurisdictions: { GBR: { autobet: 'disabled' } } },
      { jurisdictions: { GB: { autobet: 'disabled', surprise: true } } },
      { unknownField: 1 },
    ]) {
      const res = await w.call('PUT', '/api/admin/operators/rg-bad', { ...rgProfile, responsibleGaming: bad }, adminHeaders);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('is edited through the console API (and cleared with null)', async () => {
    const staff = await staffSession(w.t, 'rg-admin@example.test', 'platform_admin', null);
    const set = await w.call('PATCH', '/api/admin/operators/rg-plain', { responsibleGaming: { autobet: 'disabled', showElapsedTime: true } }, staff.headers);
    expect(set.status, set.text).toBe(200);
    expect(set.body.responsibleGaming).toEqual({ ...RULES, autobet: 'disabled', showElapsedTime: true, jurisdictions: {} });
    const other = await w.call('PATCH', '/api/admin/operators/rg-plain', { enabled: true }, staff.headers);
    expect((other.body.responsibleGaming as { autobet: string }).autobet).toBe('disabled'); // an edit of another field keeps it
    const cleared = await w.call('PATCH', '/api/admin/operators/rg-plain', { responsibleGaming: null }, staff.headers);
    expect(cleared.body.responsibleGaming).toBeNull();
  });
});

describe('the effective rules of a session', () => {
  it('take the override of the full code first, then of its country; none without (or with an unreadable) jurisdiction', async () => {
    const cases: [string | undefined, Record<string, unknown>][] = [
      ['GB', { ...RULES, ...PROFILE_RG.jurisdictions.gb, jurisdiction: 'GB' }],
      ['CA-ON', { ...RULES, realityCheckMinutes: 120, showNetPosition: true, jurisdiction: 'CA-ON' }],
      ['CA-QC', { ...RULES, realityCheckMinutes: 120, autobet: 'disabled', jurisdiction: 'CA-QC' }],
      ['de', { ...RULES, realityCheckMinutes: 120, jurisdiction: 'DE' }],
      ['not a code', { ...RULES, realityCheckMinutes: 120, jurisdiction: null }],
      [undefined, { ...RULES, realityCheckMinutes: 120, jurisdiction: null }],
    ];
    for (const [i, [jurisdiction, rules]] of cases.entries()) {
      const { s } = await rgPlayer(`rules-${i}`, jurisdiction === undefined ? {} : { jurisdiction });
      expect(s.status, s.text).toBe(200);
      expect(s.body.rules, String(jurisdiction)).toEqual(rules);
    }
    const validate = w.casino.requests().filter((r) => r.path === '/wallet/validate-session');
    expect(validate.length).toBeGreaterThanOrEqual(cases.length);
  });

  it('are today’s behaviour for a profile without responsibleGaming, and carried by lobby sessions and a currency switch', async () => {
    const plain = await rgPlayer('plain-gb', { jurisdiction: 'GB' }, { operatorId: 'rg-plain' });
    expect(plain.s.body.rules).toEqual({ ...RULES, jurisdiction: 'GB' });
    const lobby = await rgPlayer('lobby-gb', { jurisdiction: 'GB' }, { launchMode: 'lobby' });
    expect(lobby.s.body.rules).toMatchObject({ autobet: 'limited', jurisdiction: 'GB' });
    // a switch (CONTRACT.md §14) is a POST /api/sessions naming the session it replaces
    const token = w.casino.issueLaunchToken('plain-gb', { operatorId: OP });
    const switched = await w.call('POST', '/api/sessions', {
      operatorId: OP,
      launchToken: token,
      gameType: 'dice',
      switchFromSessionId: plain.player.sessionId,
    });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.body.rules).toMatchObject({ autobet: 'limited', minRoundIntervalMs: 2500, jurisdiction: 'GB' });
  });
});

describe('round starts', () => {
  it('AUTOBET_DISABLED: an autobet bet is refused before any wallet call, storing nothing; the same bet by hand plays', async () => {
    const { player } = await rgPlayer('fr-auto', { jurisdiction: 'FR' });
    const debitsBefore = debitRequests();
    const refused = await diceBet(player, { autobet: true });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('AUTOBET_DISABLED');
    expect(refused.body.roundId).toBeUndefined();
    expect(debitRequests()).toBe(debitsBefore);
    expect(await roundsOf('fr-auto')).toBe(0);
    expect(Number((await w.t.services.db('idempotency_records').where({ session_id: player.sessionId }).count<{ n: string }[]>({ n: '*' }))[0]!.n)).toBe(0);
    const byHand = await diceBet(player);
    expect(byHand.status, byHand.text).toBe(200);
    // Mines and Blackjack starts take the flag too
    const mines = await rgPlayer('fr-mines', { jurisdiction: 'FR' }, { gameType: 'mines' });
    const m = await w.call('POST', '/api/mines/rounds', {
      sessionId: mines.player.sessionId,
      amount: 1,
      mineCount: 3,
      idempotencyKey: newKey('m'),
      autobet: true,
    });
    expect(m.body.code).toBe('AUTOBET_DISABLED');
    const bj = await rgPlayer('fr-bj', { jurisdiction: 'FR' }, { gameType: 'blackjack' });
    const b = await w.call('POST', '/api/blackjack/rounds', { sessionId: bj.player.sessionId, amount: 1, idempotencyKey: newKey('b'), autobet: true });
    expect(b.body.code).toBe('AUTOBET_DISABLED');
    expect(debitsOf('fr-mines') + debitsOf('fr-bj')).toBe(0);
    // a GB player (limited) and a player without a jurisdiction may autobet
    const gb = await rgPlayer('gb-auto', { jurisdiction: 'GB' });
    expect((await diceBet(gb.player, { autobet: true })).status).toBe(200);
    expect((await diceBet(player, { autobet: 'yes' })).body.code).toBe('VALIDATION_ERROR');
  });

  it('ROUND_TOO_FAST: a second round within minRoundIntervalMs is refused across the player’s sessions, before any wallet call; other players are not held back', async () => {
    const first = await rgPlayer('mt-fast', { jurisdiction: 'MT' });
    expect((await diceBet(first.player)).status).toBe(200);
    const again = await w.call('POST', '/api/sessions', { operatorId: OP, launchToken: first.player.launchToken, gameType: 'dice' });
    const second = { ...first.player, sessionId: String(again.body.sessionId) };
    const debitsBefore = debitRequests();
    for (const p of [first.player, second]) {
      const refused = await diceBet(p);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('ROUND_TOO_FAST');
      expect(refused.body.retryAfterMs).toBeGreaterThan(0);
    }
    expect(debitRequests()).toBe(debitsBefore);
    expect(await roundsOf('mt-fast')).toBe(1);
    // another player of the same jurisdiction plays
    const other = await rgPlayer('mt-other', { jurisdiction: 'MT' });
    expect((await diceBet(other.player)).status).toBe(200);
    // the same key, once it played, replays its answer instead of counting as a new round
    const key = newKey('replay');
    const nl = await rgPlayer('nl-replay', { jurisdiction: 'NL' });
    const played = await diceBet(nl.player, {}, key);
    expect(played.status).toBe(200);
    expect((await diceBet(nl.player, {}, key)).body.roundId).toBe(played.body.roundId);
    // after the interval (300 ms for NL) the player plays again
    await sleep(400);
    expect((await diceBet(nl.player)).status).toBe(200);
  });

  it('ROUND_TOO_FAST holds across pods sharing Redis', async () => {
    const pod2: TestApp = await createTestApp({ databaseUrl: w.t.config.databaseUrl, redisKeyPrefix: w.t.config.redisKeyPrefix });
    try {
      const { player } = await rgPlayer('mt-pods', { jurisdiction: 'MT' });
      expect((await diceBet(player)).status).toBe(200);
      const res = await pod2.app.inject({
        method: 'POST',
        url: '/api/bets',
        payload: { sessionId: player.sessionId, gameType: 'dice', amount: 1, idempotencyKey: newKey('pod2'), params: { target: 50.5, direction: 'over' } },
      });
      expect(res.json().code).toBe('ROUND_TOO_FAST');
      expect(await roundsOf('mt-pods')).toBe(1);
    } finally {
      await pod2.close();
    }
  });

  it('the in-process fallback (no REDIS_URL) paces the same way within one process', async () => {
    let now = 1_000_000;
    const kv = createInProcessStore(() => now);
    try {
      expect(await kv.paceStart('p', 2500)).toBe(0);
      now += 1000;
      expect(await kv.paceStart('p', 2500)).toBe(1500);
      expect(await kv.paceStart('q', 2500)).toBe(0);
      now += 1500;
      expect(await kv.paceStart('p', 2500)).toBe(0);
      // a refused start records nothing: the wait counts from the last start that played
      now += 2000;
      expect(await kv.paceStart('p', 2500)).toBe(500);
      now += 500;
      expect(await kv.paceStart('p', 2500)).toBe(0);
    } finally {
      await kv.close();
    }
  });
});

describe('casinoMessage', () => {
  it('a debit refused by the casino’s loss limit reaches the game as casinoMessage beside casinoCode, trimmed and without control characters', async () => {
    const message = '  You have reached your daily loss limit of £50.\nIt resets at midnight. <b>Set limits</b>\u0007\u202E ';
    const { player } = await rgPlayer('loss-limit', { refusals: { debit: { code: 'LOSS_LIMIT_REACHED', message } } });
    const res = await diceBet(player);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({
      code: 'CASINO_HTTP_ERROR',
      casinoCode: 'LOSS_LIMIT_REACHED',
      casinoMessage: 'You have reached your daily loss limit of £50. It resets at midnight. <b>Set limits</b>',
      roundStatus: 'error',
    });
    expect(debitsOf('loss-limit')).toBe(0);
    // a message longer than 300 characters is cut at 300 (characters, not bytes)
    w.casino.setResponsibleGaming({ playerRef: 'loss-limit' }, { refusals: { debit: { code: 'TIME_OUT', message: 'ü'.repeat(500) } } });
    const long = await diceBet(player);
    expect(long.body.casinoMessage).toBe('ü'.repeat(300));
    // cleared: the player plays
    w.casino.setResponsibleGaming({ playerRef: 'loss-limit' }, { refusals: null });
    expect((await diceBet(player)).status).toBe(200);
  });

  it('a passed-through code (INSUFFICIENT_FUNDS) carries the casino’s words too', async () => {
    w.casino.createPlayer({ playerRef: 'poor', balance: '0.5', currency: 'USD' });
    const token = w.casino.issueLaunchToken('poor', { operatorId: OP });
    const s = await w.call('POST', '/api/sessions', { operatorId: OP, launchToken: token, gameType: 'dice' });
    const res = await diceBet({ playerRef: 'poor', operatorId: OP, currency: 'USD', sessionId: String(s.body.sessionId), launchToken: token });
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_FUNDS', casinoCode: 'INSUFFICIENT_FUNDS', casinoMessage: 'balance cannot cover the debit' });
  });

  it('validate-session and balance refusals carry it; a self-excluded player’s session is refused with the casino’s text', async () => {
    w.casino.createPlayer({
      playerRef: 'excluded',
      balance: '10',
      currency: 'USD',
      responsibleGaming: { refusals: { 'validate-session': { status: 403, code: 'SELF_EXCLUDED', message: 'You are self-excluded until 1 March.' } } },
    });
    const token = w.casino.issueLaunchToken('excluded', { operatorId: OP });
    const s = await w.call('POST', '/api/sessions', { operatorId: OP, launchToken: token, gameType: 'dice' });
    expect(s.status).toBe(502);
    expect(s.body).toMatchObject({ code: 'CASINO_HTTP_ERROR', casinoCode: 'SELF_EXCLUDED', casinoMessage: 'You are self-excluded until 1 March.' });
    // INVALID_SESSION with words keeps its code and carries them
    w.casino.setResponsibleGaming({ launchToken: token }, { refusals: { 'validate-session': { code: 'INVALID_SESSION', message: 'Please log in again.' } } });
    const invalid = await w.call('POST', '/api/sessions', { operatorId: OP, launchToken: token, gameType: 'dice' });
    expect(invalid.body).toMatchObject({ code: 'INVALID_SESSION', casinoMessage: 'Please log in again.' });

    const { player } = await rgPlayer('time-out');
    w.casino.setResponsibleGaming({ playerRef: 'time-out' }, { refusals: { balance: { code: 'TIME_OUT', message: 'You are on a 24-hour break.' } } });
    const bal = await w.call('GET', `/api/balance?sessionId=${player.sessionId}`);
    expect(bal.body).toMatchObject({ code: 'CASINO_HTTP_ERROR', casinoCode: 'TIME_OUT', casinoMessage: 'You are on a 24-hour break.' });
  });

  it('protocol refusals (SIGNATURE_*, IDEMPOTENCY_CONFLICT) never carry one, whatever their body', async () => {
    const { player } = await rgPlayer('protocol');
    w.casino.setResponsibleGaming(
      { playerRef: 'protocol' },
      {
        refusals: {
          balance: { status: 401, code: 'SIGNATURE_INVALID', message: 'click here' },
          debit: { code: 'IDEMPOTENCY_CONFLICT', message: 'click here' },
        },
      },
    );
    const bal = await w.call('GET', `/api/balance?sessionId=${player.sessionId}`);
    expect(bal.status).toBe(502);
    expect(bal.body.casinoCode).toBe('SIGNATURE_INVALID');
    expect(bal.body).not.toHaveProperty('casinoMessage');
    const bet = await diceBet(player);
    expect(bet.body.casinoCode).toBe('IDEMPOTENCY_CONFLICT');
    expect(bet.body).not.toHaveProperty('casinoMessage');
    // a real signature refusal: a profile whose secret the casino does not know
    const wrong = await w.call('PUT', '/api/admin/operators/rg-wrong', { ...rgProfile, sharedSecret: 'not-the-casinos-secret-0123456789' }, adminHeaders);
    expect(wrong.status).toBe(201);
    const s = await w.call('POST', '/api/sessions', { operatorId: 'rg-wrong', launchToken: player.launchToken, gameType: 'dice' });
    expect(s.status).toBe(502);
    expect(s.body).not.toHaveProperty('casinoMessage');
  });

  it('cleanCasinoText: plain printable text, at most 300 characters, nothing when only controls', () => {
    expect(cleanCasinoText('\u0000\u001b[31m\u0007')).toBe('[31m');
    expect(cleanCasinoText('\n\t\r')).toBeNull();
    expect(cleanCasinoText('a\u2066b\u2069c')).toBe('abc');
    expect([...cleanCasinoText('😀'.repeat(400))!].length).toBe(300);
  });
});
