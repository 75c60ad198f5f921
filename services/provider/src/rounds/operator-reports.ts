/**
 * The operators' reporting API (issue 26 item 3; docs/integration.md "Reporting API"): GGR per
 * UTC day × game × currency, a player's rounds (game recall), and CSV of either. Both read the
 * `reconciliation_rows` view (the GGR) or the rounds (the recall) with bounded ranges and keyset
 * pages, so a report's totals are, by construction, the sums of GET /api/reconciliation's rows over
 * the same range (status `succeeded`).
 */
import { amountJson, type CurrencyCode } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import { toBigInt, toIso, type Queryable, LIMIT_IN_TEXT } from '../store/db.js';
import { playerRoundRows } from './round-store/recall.js';
import { everyOperator } from './round-store/reports.js';
import { confirmedAwardsByDay } from './promotions/award-store.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';

/** A report spans at most this many days (bounded work per request). */
export const MAX_REPORT_DAYS = 366;

export interface ReportRange {
  from: string;
  to: string;
}

/** The range of a report: `to` defaults to now, `from` to 30 days before `to`; at most MAX_REPORT_DAYS. */
export function reportRange(from: string | undefined, to: string | undefined): ReportRange {
  const end = to ? new Date(to) : new Date();
  const start = from ? new Date(from) : new Date(end.getTime() - 30 * 86_400_000);
  if (!(start < end)) throw new AppError('VALIDATION_ERROR', 'from must be before to');
  if (end.getTime() - start.getTime() > MAX_REPORT_DAYS * 86_400_000) throw new AppError('VALIDATION_ERROR', `a report spans at most ${MAX_REPORT_DAYS} days`);
  return { from: start.toISOString(), to: end.toISOString() };
}

export interface GgrQuery extends ReportRange {
  operatorId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

type Amount = ReturnType<typeof amountJson>;

export interface GgrRow {
  day: string;
  operatorId: string;
  gameType: string;
  currency: string;
  rounds: number;
  stakes: Amount;
  payouts: Amount;
  freeBetPayouts: Amount;
  rollbacks: Amount;
  ggr: Amount;
}

/** Promotions' prizes confirmed per UTC day (issue 30): apart from the games' rows, they are not in `ggr`; on the first page only. */
export interface PromoPayoutRow {
  day: string;
  operatorId: string;
  currency: string;
  awards: number;
  payouts: Amount;
}

/**
 * Confirmed money per UTC day, operator, game and currency: `stakes` (debits, Blackjack's extra
 * debits included), `payouts` (credits of paid rounds), `freeBetPayouts` (credits of free-bet
 * rounds), `rollbacks`, `rounds` (rounds with a confirmed callback that day) and
 * `ggr` = stakes − payouts − freeBetPayouts − rollbacks. Newest day first.
 */
export async function ggrReport(
  db: Queryable,
  q: GgrQuery,
): Promise<{ rows: GgrRow[]; nextCursor: string | null; from: string; to: string; promoPayouts: PromoPayoutRow[] }> {
  const key = `to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`;
  const query = db('reconciliation_rows')
    .select(db.raw(`${key} AS day`), 'operator_id', 'game_type', 'currency')
    .select(db.raw(`COUNT(DISTINCT round_id) AS rounds`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'debit'), 0) AS stakes`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'credit' AND free_bet_campaign_id IS NULL), 0) AS payouts`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'credit' AND free_bet_campaign_id IS NOT NULL), 0) AS free_bet_payouts`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'rollback'), 0) AS rollbacks`))
    .where('status', 'succeeded')
    .where('created_at', '>=', q.from)
    .where('created_at', '<', q.to)
    .groupByRaw('1, 2, 3, 4')
    .orderByRaw('1 DESC, 2, 3, 4')
    .limit(q.limit + 1, LIMIT_IN_TEXT);
  if (q.operatorId) query.where('operator_id', q.operatorId);
  else query.whereRaw(everyOperator('operator_id'));
  if (q.cursor) {
    const [day, op, game, currency] = decodeCursor(q.cursor, 4) as [string, string, string, string];
    query.havingRaw(`(${key} < ?) OR (${key} = ? AND (operator_id, game_type, currency) > (?, ?, ?))`, [day, day, op, game, currency]);
  }
  const rows = (await query) as {
    day: string;
    operator_id: string;
    game_type: string;
    currency: CurrencyCode;
    rounds: string | number;
    stakes: string;
    payouts: string;
    free_bet_payouts: string;
    rollbacks: string;
  }[];
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const promos = q.cursor ? [] : await confirmedAwardsByDay(db, q);
  return {
    from: q.from,
    to: q.to,
    promoPayouts: promos.map((p) => ({
      day: p.day,
      operatorId: p.operator_id,
      currency: p.currency,
      awards: Number(p.count),
      payouts: amountJson(toBigInt(p.amount), p.currency),
    })),
    rows: page.map((r) => {
      const m = (v: bigint) => amountJson(v, r.currency);
      const [stakes, payouts, free, rollbacks] = [r.stakes, r.payouts, r.free_bet_payouts, r.rollbacks].map(toBigInt) as [bigint, bigint, bigint, bigint];
      return {
        day: r.day,
        operatorId: r.operator_id,
        gameType: r.game_type,
        currency: r.currency,
        rounds: Number(r.rounds),
        stakes: m(stakes),
        payouts: m(payouts),
        freeBetPayouts: m(free),
        rollbacks: m(rollbacks),
        ggr: m(stakes - payouts - free - rollbacks),
      };
    }),
    nextCursor: rows.length > q.limit && last ? encodeCursor([last.day, last.operator_id, last.game_type, last.currency]) : null,
  };
}

export interface PlayerRoundsQuery extends ReportRange {
  operatorId: string;
  playerRef: string;
  cursor?: string | undefined;
  limit: number;
}

export interface RecallRow {
  roundId: string;
  gameType: string;
  currency: string;
  amount: Amount;
  totalStaked: Amount;
  payout: Amount | null;
  multiplier: string | null;
  roundStatus: string;
  freeBet: boolean;
  result: unknown;
  createdAt: string;
  settledAt: string | null;
}

/** A player's rounds, newest first (game recall: what was played, with its result). */
export async function playerRounds(db: Queryable, q: PlayerRoundsQuery): Promise<{ rounds: RecallRow[]; nextCursor: string | null }> {
  const rows = await playerRoundRows(db, q, q.cursor ? (decodeCursor(q.cursor, 2) as [string, string]) : null);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    rounds: page.map((r) => ({
      roundId: r.round_id,
      gameType: r.game_type,
      currency: r.currency,
      amount: amountJson(toBigInt(r.amount), r.currency),
      totalStaked: amountJson(toBigInt(r.total_staked), r.currency),
      payout: r.payout === null ? null : amountJson(toBigInt(r.payout), r.currency),
      multiplier: r.multiplier,
      roundStatus: r.status,
      freeBet: r.free_bet_campaign_id !== null,
      // only what the player may see: an active round's hidden state is not in `result`
      result: r.status === 'active' ? null : r.result,
      createdAt: toIso(r.created_at),
      settledAt: r.settled_at === null ? null : toIso(r.settled_at),
    })),
    nextCursor: rows.length > q.limit && last ? encodeCursor([toIso(last.created_at), last.round_id]) : null,
  };
}

/** CSV of flat rows (RFC 4180 quoting; objects as JSON text). */
export function toCsv(columns: string[], rows: Record<string, unknown>[]): string {
  const cell = (v: unknown) => {
    const text = v === null || v === undefined ? '' : typeof v === 'object' && !('isLosslessNumber' in (v as object)) ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns.join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\r\n') + '\r\n';
}
