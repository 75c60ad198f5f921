/**
 * Data access for promotions (issue 30; migrations/20261128140000): tournaments and prize drops,
 * their players, a drop's entries and every award (with its promo credit's record). A
 * promotion's status is derived from its times in SQL, never stored twice. The scores themselves
 * are read from `rounds` by round-store/promo-reads.ts (every SQL statement on rounds lives there).
 */
import type { CurrencyCode } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import { toBigInt, toIso, type Queryable, type Tx, LIMIT_IN_TEXT } from '../../store/db.js';

export const PROMO_KINDS = ['tournament', 'prize_drop'] as const;
export type PromoKind = (typeof PROMO_KINDS)[number];
export const PROMO_STATUSES = ['scheduled', 'active', 'ended', 'cancelled'] as const;
export type PromoStatus = (typeof PROMO_STATUSES)[number];
export const SCORINGS = ['multiplier', 'wagered', 'profit', 'biggestWin'] as const;
export type Scoring = (typeof SCORINGS)[number];

const STATUS_SQL = `CASE WHEN p.cancelled_at IS NOT NULL THEN 'cancelled' WHEN now() < p.starts_at THEN 'scheduled' WHEN now() < p.ends_at THEN 'active' ELSE 'ended' END`;

export interface Promotion {
  promoId: string;
  operatorId: string;
  kind: PromoKind;
  name: string | null;
  currency: CurrencyCode;
  games: GameType[];
  minBet: bigint;
  scoring: Scoring | null;
  prizes: bigint[];
  allPlayers: boolean;
  oneIn: number | null;
  serverSeedEnc: string | null;
  serverSeedHash: string | null;
  drawnUntil: string | null;
  startsAt: string;
  endsAt: string;
  cancelledAt: string | null;
  finalizedAt: string | null;
  status: PromoStatus;
  players: number;
  createdAt: string;
}

interface PromotionRow {
  promo_id: string;
  operator_id: string;
  kind: PromoKind;
  name: string | null;
  currency: CurrencyCode;
  games: GameType[];
  min_bet: string;
  scoring: Scoring | null;
  prizes: string[];
  all_players: boolean;
  one_in: number | null;
  server_seed_enc: string | null;
  server_seed_hash: string | null;
  drawn_until: Date | string | null;
  starts_at: Date | string;
  ends_at: Date | string;
  cancelled_at: Date | string | null;
  finalized_at: Date | string | null;
  status: PromoStatus;
  players: string | number;
  created_at: Date | string;
}

const nullableIso = (v: Date | string | null) => (v === null ? null : toIso(v));

const fromRow = (r: PromotionRow): Promotion => ({
  promoId: r.promo_id,
  operatorId: r.operator_id,
  kind: r.kind,
  name: r.name,
  currency: r.currency,
  games: r.games,
  minBet: toBigInt(r.min_bet),
  scoring: r.scoring,
  prizes: r.prizes.map((p) => BigInt(p)),
  allPlayers: r.all_players,
  oneIn: r.one_in,
  serverSeedEnc: r.server_seed_enc,
  serverSeedHash: r.server_seed_hash,
  drawnUntil: nullableIso(r.drawn_until),
  startsAt: toIso(r.starts_at),
  endsAt: toIso(r.ends_at),
  cancelledAt: nullableIso(r.cancelled_at),
  finalizedAt: nullableIso(r.finalized_at),
  status: r.status,
  players: Number(r.players),
  createdAt: toIso(r.created_at),
});

function promotionQuery(db: Queryable) {
  return db('promotions as p').select(
    'p.*',
    db.raw(`${STATUS_SQL} AS status`),
    db.raw('(SELECT count(*) FROM promotion_players pp WHERE pp.promo_id = p.promo_id) AS players'),
  );
}

export async function getPromotion(db: Queryable, promoId: string): Promise<Promotion | null> {
  const row = (await promotionQuery(db).where('p.promo_id', promoId).first()) as PromotionRow | undefined;
  return row ? fromRow(row) : null;
}

export interface PromotionFilter {
  operatorId?: string | undefined;
  operatorIds?: string[] | null | undefined;
  kind?: PromoKind | undefined;
  status?: PromoStatus | undefined;
  limit: number;
}

export async function listPromotions(db: Queryable, f: PromotionFilter): Promise<Promotion[]> {
  const q = promotionQuery(db).orderBy('p.created_at', 'desc').limit(f.limit, LIMIT_IN_TEXT);
  if (f.operatorId) q.where('p.operator_id', f.operatorId);
  if (f.operatorIds) q.whereIn('p.operator_id', f.operatorIds);
  if (f.kind) q.where('p.kind', f.kind);
  if (f.status) q.whereRaw(`${STATUS_SQL} = ?`, [f.status]);
  return ((await q) as PromotionRow[]).map(fromRow);
}

/** The operator's promotions running now (the game page's panel) — few rows, by (operator_id, ends_at). */
export async function activePromotionsOf(db: Queryable, operatorId: string): Promise<Promotion[]> {
  const rows = (await promotionQuery(db)
    .where('p.operator_id', operatorId)
    .whereNull('p.cancelled_at')
    .andWhere('p.ends_at', '>', db.fn.now())
    .andWhere('p.starts_at', '<=', db.fn.now())
    .orderBy('p.ends_at')) as PromotionRow[];
  return rows.map(fromRow);
}

/**
 * What the game page's poll hint needs beyond the running promotions (leaderboard.ts): the next
 * start of a scheduled promotion of the operator, and whether one ended within `settleSeconds`
 * without its result fixed yet (its prizes are about to be awarded).
 */
export async function upcomingPromotionTimes(
  db: Queryable,
  operatorId: string,
  settleSeconds: number,
): Promise<{ nextStartAt: string | null; settling: boolean }> {
  const res = await db.raw(
    `SELECT min(starts_at) FILTER (WHERE starts_at > now()) AS next_start,
            coalesce(bool_or(ends_at <= now() AND finalized_at IS NULL), false) AS settling
       FROM promotions
      WHERE operator_id = ? AND cancelled_at IS NULL
        AND (starts_at > now() OR (ends_at <= now() AND ends_at > now() - make_interval(secs => ?) AND finalized_at IS NULL))`,
    [operatorId, settleSeconds],
  );
  const row = (res.rows as { next_start: Date | string | null; settling: boolean }[])[0];
  return { nextStartAt: row?.next_start ? toIso(row.next_start) : null, settling: row?.settling ?? false };
}

export type NewPromotion = Omit<Promotion, 'status' | 'players' | 'createdAt' | 'cancelledAt' | 'finalizedAt' | 'drawnUntil' | 'startsAt' | 'endsAt'> & {
  startsAt: Date;
  endsAt: Date;
};

export async function insertPromotion(tx: Tx, p: NewPromotion, playerRefs: string[]): Promise<void> {
  await tx('promotions').insert({
    promo_id: p.promoId,
    operator_id: p.operatorId,
    kind: p.kind,
    name: p.name,
    currency: p.currency,
    games: JSON.stringify(p.games),
    min_bet: p.minBet.toString(),
    scoring: p.scoring,
    prizes: JSON.stringify(p.prizes.map(String)),
    all_players: p.allPlayers,
    one_in: p.oneIn,
    server_seed_enc: p.serverSeedEnc,
    server_seed_hash: p.serverSeedHash,
    starts_at: p.startsAt,
    ends_at: p.endsAt,
  });
  const refs = [...new Set(playerRefs)];
  for (let i = 0; i < refs.length; i += 500) {
    await tx('promotion_players').insert(refs.slice(i, i + 500).map((r) => ({ promo_id: p.promoId, player_ref: r })));
  }
}

export async function promotionPlayers(db: Queryable, promoId: string): Promise<string[]> {
  const rows: { player_ref: string }[] = await db('promotion_players').where({ promo_id: promoId }).orderBy('player_ref').select('player_ref');
  return rows.map((r) => r.player_ref);
}

export async function isPlayerOf(db: Queryable, promoId: string, playerRef: string): Promise<boolean> {
  return Boolean(await db('promotion_players').where({ promo_id: promoId, player_ref: playerRef }).first());
}

/** Cancels a promotion not yet ended or finalized; answers whether this call cancelled it. */
export async function cancelPromotion(db: Queryable, promoId: string): Promise<boolean> {
  const n = await db('promotions')
    .where({ promo_id: promoId })
    .whereNull('cancelled_at')
    .whereNull('finalized_at')
    .andWhere('ends_at', '>', db.fn.now())
    .update({ cancelled_at: db.fn.now(), updated_at: db.fn.now() });
  return n > 0;
}

/** Marks a promotion finalized (its awards written in the same transaction); false when another pod did it first or it was cancelled. */
export async function markFinalized(tx: Tx, promoId: string): Promise<boolean> {
  const n = await tx('promotions')
    .where({ promo_id: promoId })
    .whereNull('finalized_at')
    .whereNull('cancelled_at')
    .update({ finalized_at: tx.fn.now(), updated_at: tx.fn.now() });
  return n > 0;
}

/** Locks the promotion's row for its draw or its finalization (one pod at a time); null when it is gone. */
export async function lockPromotion(tx: Tx, promoId: string): Promise<Promotion | null> {
  await tx.raw('SELECT 1 FROM promotions WHERE promo_id = ? FOR UPDATE', [promoId]);
  return getPromotion(tx, promoId);
}

/** Tournaments past their end (+ grace) with no standings yet; drops running or just ended that need a draw. */
export async function promotionsDue(db: Queryable, graceSeconds: number): Promise<{ promoId: string; kind: PromoKind }[]> {
  const rows: { promo_id: string; kind: PromoKind }[] = await db('promotions')
    .whereNull('cancelled_at')
    .whereNull('finalized_at')
    .andWhere('starts_at', '<=', db.fn.now())
    .andWhere((q) => {
      q.where('kind', 'prize_drop').orWhereRaw(`ends_at + make_interval(secs => ?) <= now()`, [graceSeconds]);
    })
    .select('promo_id', 'kind')
    .orderBy('ends_at')
    .limit(100, LIMIT_IN_TEXT);
  return rows.map((r) => ({ promoId: r.promo_id, kind: r.kind }));
}

export async function setDrawnUntil(tx: Tx, promoId: string, until: Date, finalize: boolean): Promise<void> {
  await tx('promotions')
    .where({ promo_id: promoId })
    .update({ drawn_until: until, updated_at: tx.fn.now(), ...(finalize ? { finalized_at: tx.fn.now() } : {}) });
}

/* ------------------------------------------------------------------------- a drop's entries */

export interface DropEntryRow {
  seq: number;
  roundId: string;
  ticket: string;
  playerRef: string;
}

export async function lastEntrySeq(db: Queryable, promoId: string): Promise<number> {
  const r = (await db('prize_drop_entries').where({ promo_id: promoId }).max<{ m: number | null }[]>({ m: 'seq' }))[0];
  return Number(r?.m ?? 0);
}

export async function insertEntries(tx: Tx, promoId: string, entries: DropEntryRow[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 500) {
    await tx('prize_drop_entries').insert(
      entries.slice(i, i + 500).map((e) => ({ promo_id: promoId, seq: e.seq, round_id: e.roundId, ticket: e.ticket, player_ref: e.playerRef })),
    );
  }
}

export async function dropEntries(db: Queryable, promoId: string): Promise<DropEntryRow[]> {
  const rows: { seq: number; round_id: string; ticket: string; player_ref: string }[] = await db('prize_drop_entries')
    .where({ promo_id: promoId })
    .orderBy('seq');
  return rows.map((r) => ({ seq: r.seq, roundId: r.round_id, ticket: r.ticket, playerRef: r.player_ref }));
}

export async function entryCount(db: Queryable, promoId: string): Promise<number> {
  const r = (await db('prize_drop_entries').where({ promo_id: promoId }).count<{ n: string }[]>({ n: '*' }))[0];
  return Number(r?.n ?? 0);
}
