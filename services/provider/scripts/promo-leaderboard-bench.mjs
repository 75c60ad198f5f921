#!/usr/bin/env node
/**
 * Sets up the leaderboard measurement of docs/promotions.md ("What a leaderboard costs"): on a
 * running provider (BASE, ADMIN_TOKEN; the demo operator demo-usd), a tournament open to every
 * player, PLAYERS players (demo casino sessions) and BETS dice bets spread over them. Prints the
 * URL a watcher polls (GET /api/sessions/{sessionId}/promotions); point autocannon at it:
 *   npx autocannon -c 100 -d 20 "<url>"
 */
const BASE = process.env.BASE ?? 'http://127.0.0.1:3000';
const ADMIN = process.env.ADMIN_TOKEN ?? '';
const PLAYERS = Number(process.env.PLAYERS ?? 1000);
const BETS = Number(process.env.BETS ?? 5000);
const CONCURRENCY = 16;

async function call(method, path, body, headers = {}) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function pool(n, f) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await f(next++);
    }),
  );
}

const t = await call(
  'POST',
  '/api/admin/promotions',
  {
    kind: 'tournament',
    operatorId: 'demo-usd',
    name: 'Bench race',
    scoring: 'wagered',
    prizes: [100, 50, 25, 10, 5],
    endsAt: new Date(Date.now() + 86_400_000).toISOString(),
  },
  { authorization: `Bearer ${ADMIN}` },
);
const sessions = new Array(PLAYERS);
await pool(PLAYERS, async (i) => {
  const launch = await call('POST', '/sandbox/launch', { operatorId: 'demo-usd', playerRef: `bench-${i}`, gameType: 'dice', launchMode: 'lobby' });
  sessions[i] = (
    await call('POST', '/api/sessions', { operatorId: 'demo-usd', launchToken: launch.launchToken, gameType: 'dice', launchMode: 'lobby' })
  ).sessionId;
});
const started = Date.now();
await pool(BETS, async (i) => {
  await call('POST', '/api/bets', {
    sessionId: sessions[i % PLAYERS],
    gameType: 'dice',
    amount: 1 + (i % 7),
    idempotencyKey: `bench-${t.promoId}-${i}`,
    params: { target: 50, direction: 'over' },
  });
});
console.log(
  JSON.stringify({
    promoId: t.promoId,
    players: PLAYERS,
    bets: BETS,
    betSeconds: (Date.now() - started) / 1000,
    watch: `${BASE}/api/sessions/${sessions[0]}/promotions`,
  }),
);
