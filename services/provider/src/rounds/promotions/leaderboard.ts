/**
 * Live leaderboards (issue 30, docs/promotions.md "Live leaderboard"): a tournament's standings
 * come from ONE aggregate query over its rounds (round-store/promo-reads.ts), kept in each pod's
 * memory for LEADERBOARD_CACHE_MS (2 s): every watcher of that pod shares that one query, and
 * concurrent misses share the query in flight. The game page asks the cached endpoint
 * `GET /api/sessions/{sessionId}/promotions` every few seconds; nothing is done per bet.
 * Players appear by a masked form of the display name the casino gave at launch.
 */
import { createHash } from 'node:crypto';
import { PRIZE_DROP_RULE } from '@gp/game-core/fairness';
import { amountJson, multiplierJson, parseMultiplier } from '@gp/game-core/money';
import { AppError } from '../../errors.js';
import { memo, type Memo } from '../../infra/memo.js';
import type { Queryable } from '../../store/db.js';
import type { SessionWithToken } from '../../sessions/sessions.js';
import type { MoneyDeps } from '../money-path/callbacks.js';
import { tournamentStandings, type StandingRow } from '../round-store/promo-reads.js';
import { awardsOf, recentAwardsOfPlayer } from './award-store.js';
import { nextPollSeconds } from './poll-hint.js';
import { activePromotionsOf, dropEntries, promotionPlayers, upcomingPromotionTimes, type Promotion } from './promotion-store.js';
import { awardView, promotionOf, promotionView, seedRevealed, type PromoCaller } from './promotions.js';

interface Standings {
  rows: StandingRow[];
  byPlayer: Map<string, StandingRow>;
  at: string;
}

const caches = new WeakMap<object, Memo<string, Promise<Standings>>>();

/** The standings of a tournament, from this pod's cache when younger than `ttlMs`. */
export function standingsOf(db: Queryable, p: Promotion, ttlMs: number): Promise<Standings> {
  let cache = caches.get(db);
  if (!cache) {
    cache = memo<string, Promise<Standings>>({ max: 1000, ttlMs });
    caches.set(db, cache);
  }
  const hit = ttlMs > 0 ? cache.get(p.promoId) : undefined;
  if (hit) return hit;
  const rule = {
    promoId: p.promoId,
    operatorId: p.operatorId,
    games: p.games,
    minBet: p.minBet,
    startsAt: p.startsAt,
    endsAt: p.endsAt,
    allPlayers: p.allPlayers,
  };
  const query = tournamentStandings(db, rule, p.scoring!).then((rows) => ({
    rows,
    byPlayer: new Map(rows.map((r) => [r.playerRef, r])),
    at: new Date().toISOString(),
  }));
  cache.set(p.promoId, query);
  query.catch(() => cache.delete(p.promoId));
  return query;
}

/** A tournament score as JSON: an amount in the currency (wagered, profit, biggestWin) or a multiplier. */
export function scoreJson(p: Promotion, score: string) {
  return p.scoring === 'multiplier' ? multiplierJson(parseMultiplier(score)) : amountJson(BigInt(score.replace(/\.0*$/, '')), p.currency);
}

/** "Alice" → "A***e"; no name: "Player " and 4 hex characters of a hash of the playerRef (never the ref itself). */
export function maskName(displayName: string | null | undefined, playerRef: string): string {
  const name = (displayName ?? '').trim();
  if (!name) return `Player ${createHash('sha256').update(playerRef).digest('hex').slice(0, 4)}`;
  const chars = [...name];
  return chars.length <= 2 ? `${chars[0]}***` : `${chars[0]}***${chars[chars.length - 1]}`;
}

/** The latest display name the casino gave each player (sessions_operator_player_recent). */
async function displayNames(db: Queryable, operatorId: string, playerRefs: string[]): Promise<Map<string, string | null>> {
  if (playerRefs.length === 0) return new Map();
  const res = await db.raw(
    `SELECT DISTINCT ON (player_ref) player_ref, display_name FROM sessions WHERE operator_id = ? AND player_ref IN (${playerRefs.map(() => '?').join(',')}) ORDER BY player_ref, created_at DESC`,
    [operatorId, ...playerRefs],
  );
  return new Map((res.rows as { player_ref: string; display_name: string | null }[]).map((r) => [r.player_ref, r.display_name]));
}

function entryView(p: Promotion, r: StandingRow, names: Map<string, string | null>, opts: { withRef: boolean }) {
  const prize = p.prizes[r.rank - 1];
  return {
    rank: r.rank,
    name: maskName(names.get(r.playerRef), r.playerRef),
    ...(opts.withRef ? { playerRef: r.playerRef } : {}),
    score: scoreJson(p, r.score),
    rounds: r.rounds,
    reachedAt: r.reachedAt,
    prize: prize === undefined ? null : amountJson(prize, p.currency),
  };
}

/** The operator API's leaderboard: the top `limit` with their playerRefs. */
export async function leaderboardOf(deps: MoneyDeps, caller: PromoCaller, promoId: string, limit: number) {
  const p = await promotionOf(deps, caller, promoId);
  if (p.kind !== 'tournament') throw new AppError('ACTION_NOT_AVAILABLE', 'a prize drop has no leaderboard: see its awards');
  const s = await standingsOf(deps.db, p, deps.config.promotions.leaderboardCacheMs);
  const top = s.rows.slice(0, limit);
  const names = await displayNames(
    deps.db,
    p.operatorId,
    top.map((r) => r.playerRef),
  );
  return { ...promotionView(p), ranked: s.rows.length, asOf: s.at, entries: top.map((r) => entryView(p, r, names, { withRef: true })) };
}

export const PANEL_TOP = 10;

/** What every watcher of an operator shares, built once per LEADERBOARD_CACHE_MS per pod. */
interface OperatorPanel {
  promos: { p: Promotion; players: Set<string> | null; standings: Standings | null; names: Map<string, string | null>; awarded: number }[];
  /** for the poll hint (poll-hint.ts) */
  nextStartAt: string | null;
  settling: boolean;
}
/** How long after its end a promotion's result is awaited before the page slows down again: the grace plus a couple of minutes of passes. */
const SETTLE_EXTRA_SECONDS = 120;
const panels = new WeakMap<object, Memo<string, Promise<OperatorPanel>>>();

function operatorPanel(db: Queryable, operatorId: string, ttlMs: number, graceSeconds: number): Promise<OperatorPanel> {
  let cache = panels.get(db);
  if (!cache) {
    cache = memo<string, Promise<OperatorPanel>>({ max: 1000, ttlMs });
    panels.set(db, cache);
  }
  const hit = ttlMs > 0 ? cache.get(operatorId) : undefined;
  if (hit) return hit;
  const build = (async (): Promise<OperatorPanel> => {
    const running = await activePromotionsOf(db, operatorId);
    const promos = [];
    for (const p of running) {
      const players = p.allPlayers ? null : new Set(await promotionPlayers(db, p.promoId));
      if (p.kind === 'tournament') {
        const standings = await standingsOf(db, p, ttlMs);
        const names = await displayNames(
          db,
          p.operatorId,
          standings.rows.slice(0, PANEL_TOP).map((r) => r.playerRef),
        );
        promos.push({ p, players, standings, names, awarded: 0 });
      } else {
        promos.push({ p, players, standings: null, names: new Map<string, string | null>(), awarded: (await awardsOf(db, p.promoId)).length });
      }
    }
    const { nextStartAt, settling } = await upcomingPromotionTimes(db, operatorId, graceSeconds + SETTLE_EXTRA_SECONDS);
    return { promos, nextStartAt, settling };
  })();
  cache.set(operatorId, build);
  build.catch(() => cache.delete(operatorId));
  return build;
}

/**
 * The game page's panel (GET /api/sessions/{sessionId}/promotions): the session's operator's
 * running tournaments (top 10, the player's own rank and score, the prizes, the end) and prize
 * drops (prizes left, the committed seed hash), and the player's prizes of the last 24 hours.
 * Everything but the player's own prizes comes from the operator's panel, built once per
 * LEADERBOARD_CACHE_MS per pod and shared by every watcher: a request costs the session lookup
 * (cached) and one indexed query.
 */
export async function sessionPromotions(
  deps: MoneyDeps & { sessions: { get(db: MoneyDeps['db'], id: string): Promise<SessionWithToken> } },
  sessionId: string,
) {
  const session = await deps.sessions.get(deps.db, sessionId);
  const [panel, awards] = await Promise.all([
    operatorPanel(deps.db, session.operatorId, deps.config.promotions.leaderboardCacheMs, deps.config.promotions.graceSeconds),
    recentAwardsOfPlayer(deps.db, session.operatorId, session.playerRef, 24),
  ]);
  const tournaments = [];
  const drops = [];
  for (const { p, players, standings, names, awarded } of panel.promos) {
    if (players && !players.has(session.playerRef)) continue;
    const base = {
      promoId: p.promoId,
      name: p.name,
      games: p.games,
      currency: p.currency,
      minBet: amountJson(p.minBet, p.currency),
      endsAt: p.endsAt,
      prizes: p.prizes.map((x) => amountJson(x, p.currency)),
    };
    if (standings) {
      const top = standings.rows.slice(0, PANEL_TOP);
      const me = standings.byPlayer.get(session.playerRef);
      const you = me ? { ...entryView(p, me, names, { withRef: false }), name: session.displayName ?? maskName(null, me.playerRef) } : null;
      tournaments.push({
        ...base,
        scoring: p.scoring,
        players: standings.rows.length,
        asOf: standings.at,
        top: top.map((r) => ({ ...entryView(p, r, names, { withRef: false }), you: r.playerRef === session.playerRef })),
        you,
      });
    } else {
      drops.push({ ...base, oneIn: p.oneIn, rule: PRIZE_DROP_RULE, serverSeedHash: p.serverSeedHash, prizesLeft: p.prizes.length - awarded });
    }
  }
  const wins = awards.map((a) => {
    const v = awardView(a);
    return { promoId: v.promoId, prize: v.prize, amount: v.amount, currency: v.currency, roundId: a.roundId, status: v.status, createdAt: v.createdAt };
  });
  const hint = nextPollSeconds({ running: tournaments.length + drops.length > 0, settling: panel.settling, nextStartAt: panel.nextStartAt, now: Date.now() });
  return { tournaments, drops, wins, nextPollSeconds: hint };
}

/**
 * A prize drop's public proof (GET /api/promotions/{promoId}/proof, no authentication): the rule,
 * the committed hash, the tickets in draw order and the awards; the seed once the drop is over.
 * No round id or playerRef: a player finds their own bet by hashing its round id.
 */
export async function dropProof(deps: MoneyDeps, promoId: string) {
  const p = await promotionOf(deps, { kind: 'admin' }, promoId);
  if (p.kind !== 'prize_drop') throw new AppError('ACTION_NOT_AVAILABLE', 'only a prize drop has a proof');
  const revealed = seedRevealed(p);
  const [entries, awards] = await Promise.all([dropEntries(deps.db, promoId), awardsOf(deps.db, promoId)]);
  const ticketOf = new Map(entries.map((e) => [e.seq, e.ticket]));
  return {
    promoId: p.promoId,
    rule: PRIZE_DROP_RULE,
    status: p.status,
    currency: p.currency,
    oneIn: p.oneIn!,
    prizes: p.prizes.map((x) => amountJson(x, p.currency)),
    serverSeedHash: p.serverSeedHash!,
    serverSeed: revealed && p.serverSeedEnc ? deps.box.open(p.serverSeedEnc) : null,
    startsAt: p.startsAt,
    endsAt: p.endsAt,
    entries: entries.map((e) => ({ seq: e.seq, ticket: e.ticket })),
    awards: awards.map((a) => ({ prize: a.prize, seq: a.seq ?? 0, ticket: ticketOf.get(a.seq ?? 0) ?? '', amount: amountJson(a.amount, a.currency) })),
  };
}
