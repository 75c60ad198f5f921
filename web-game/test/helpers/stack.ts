/**
 * The provider in-process on the real PostgreSQL and Redis, listening on 127.0.0.1 and reached as
 * `http://localhost:<port>` (so a casino page on `http://127.0.0.1:<other port>` is another origin),
 * with the reference casino over HTTP and operator profiles on both sides.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import { adminHeaders, createTestApp, type TestApp } from '../../../services/provider/test/helpers/app.js';

export interface Profile {
  operatorId: string;
  currency?: string;
  decimals?: number;
  tenantId?: string | null;
  allowedEmbedOrigins?: string[];
  showBalanceInEmbed?: boolean;
  autobetStopOnHidden?: boolean;
  enabledGames?: string[];
  minBet?: number;
  stakeStep?: number;
  maxBet?: number | null;
  /** issue 27: the profile's responsible-gaming rules */
  responsibleGaming?: Record<string, unknown> | null;
}

export interface Stack {
  t: TestApp;
  casino: ReferenceCasino;
  /** http://localhost:<port> */
  base: string;
  put(p: Profile): Promise<void>;
  /** A casino player with a wallet in the profile's currency and a launch token for it. */
  player(playerRef: string, operatorId: string, balance?: string): string;
  token(playerRef: string, operatorId: string): string;
  /** The casino's balance of a player, in minor units. */
  casinoBalance(playerRef: string, operatorId: string): bigint;
  launchUrl(q: Record<string, string>): string;
  round(roundId: string): Promise<{ status: string; payout: string | null; amount: string; game_type: string; session_id: string }>;
  close(): Promise<void>;
}

export const secretOf = (id: string) => `secret-of-${id}-0123456789abcdef`;

export async function startStack(profiles: Profile[]): Promise<Stack> {
  const casino = await startReferenceCasino({
    operators: Object.fromEntries(
      profiles.map((p) => [p.operatorId, { secret: secretOf(p.operatorId), currency: p.currency ?? 'USD', decimals: p.decimals ?? 2 }]),
    ),
  });
  const t = await createTestApp({ listen: true });
  const port = new URL(t.url).port;
  const base = `http://localhost:${port}`;
  // The address players use, as PUBLIC_BASE_URL would say in production (links are never built from Host).
  t.services.config.publicBaseUrl = base;
  const spec = new Map(profiles.map((p) => [p.operatorId, p]));

  const put = async (p: Profile) => {
    spec.set(p.operatorId, p);
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/operators/${p.operatorId}`,
      headers: adminHeaders,
      payload: {
        currency: p.currency ?? 'USD',
        callbackBaseUrl: casino.url,
        sharedSecret: secretOf(p.operatorId),
        minBet: p.minBet ?? 0.1,
        maxBet: p.maxBet === undefined ? 100 : p.maxBet,
        stakeStep: p.stakeStep ?? 0.01,
        maxPayout: 100000,
        enabledGames: p.enabledGames ?? ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'],
        theme: { showBalanceInEmbed: p.showBalanceInEmbed ?? true, autobetStopOnHidden: p.autobetStopOnHidden ?? false },
        tenantId: p.tenantId ?? null,
        allowedEmbedOrigins: p.allowedEmbedOrigins ?? [],
        ...(p.responsibleGaming !== undefined ? { responsibleGaming: p.responsibleGaming } : {}),
      },
    });
    if (res.statusCode >= 300) throw new Error(`PUT ${p.operatorId}: ${res.body}`);
  };
  for (const p of profiles) await put(p);

  const currencyOf = (id: string) => spec.get(id)?.currency ?? 'USD';
  return {
    t,
    casino,
    base,
    put,
    player(playerRef, operatorId, balance = '1000') {
      casino.createPlayer({ playerRef, displayName: playerRef, balance, currency: currencyOf(operatorId) });
      return casino.issueLaunchToken(playerRef, { operatorId });
    },
    token: (playerRef, operatorId) => casino.issueLaunchToken(playerRef, { operatorId }),
    casinoBalance: (playerRef, operatorId) => casino.balanceOf(playerRef, currencyOf(operatorId)),
    launchUrl: (q) => `${base}/game.html?${new URLSearchParams(q).toString()}`,
    async round(roundId) {
      const row = await t.services.db('rounds').where({ round_id: roundId }).first();
      return { ...row, payout: row.payout === null ? null : String(row.payout), amount: String(row.amount) };
    },
    async close() {
      await t.close();
      await casino.close();
    },
  };
}

/** A casino page on its own origin (http://127.0.0.1:<port>) that frames the game and records every message it gets. */
export interface CasinoPage {
  origin: string;
  /** the page framing `src` (its iframe has id "game") */
  url(src: string, opts?: { height?: number; attacker?: string }): string;
  close(): Promise<void>;
}

const PARENT_HTML = (src: string, height: number, attacker: string | null) => `<!doctype html><html><head><meta charset="utf-8"><title>Casino</title>
<style>body{margin:0;background:#222;font-family:sans-serif}iframe{display:block;width:100%;border:0}</style></head><body>
<iframe id="game" src="${src}" style="height:${height || 150}px"></iframe>
${attacker ? `<iframe id="attacker" src="${attacker}" style="height:10px"></iframe>` : ''}
<script>
window.messages = [];
window.addEventListener('message', (e) => {
  if (e.source !== document.getElementById('game').contentWindow) return;
  window.messages.push({ origin: e.origin, data: e.data });
  if (e.data && e.data.type === 'PROVIDER_RESIZE' && ${height === 0 ? 'true' : 'false'}) document.getElementById('game').style.height = e.data.height + 'px';
});
</script></body></html>`;

const ATTACKER_HTML = `<!doctype html><html><body><script>
window.addEventListener('message', (e) => { if (e.data && e.data.cmd === 'post') parent.frames[0].postMessage(e.data.message, '*'); });
window.received = [];
window.addEventListener('message', (e) => { if (e.data && e.data.type) window.received.push(e.data); });
</script></body></html>`;

export async function startCasinoPage(): Promise<CasinoPage> {
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/attacker.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(ATTACKER_HTML);
    if (u.pathname !== '/casino.html') return void res.writeHead(404).end();
    const src = u.searchParams.get('src') ?? '';
    const height = Number(u.searchParams.get('height') ?? '0');
    const attacker = u.searchParams.get('attacker');
    res.writeHead(200, { 'content-type': 'text/html' }).end(PARENT_HTML(src.replace(/"/g, '&quot;'), height, attacker));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (src, opts = {}) =>
      `${origin}/casino.html?${new URLSearchParams({ src, height: String(opts.height ?? 0), ...(opts.attacker ? { attacker: opts.attacker } : {}) }).toString()}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
