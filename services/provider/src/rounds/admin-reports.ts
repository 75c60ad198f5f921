/**
 * The admin console's reports (issue 13 items 7–8): reconciliation totals per operator, currency
 * and day; the reconciliation CSV, streamed page by page (a month of rows never sits in memory);
 * the dashboard's figures over a time range, with each game's measured RTP beside its design value.
 */
import { gameRtp, type GameType } from '@gp/game-core/games';
import { amountJson, type CurrencyCode } from '@gp/game-core/money';
import { toBigInt, type Queryable } from '../store/db.js';
import { reconciliationRows, type ReconciliationQuery } from './reconciliation.js';
import { awardTotalsByDay } from './promotions/award-store.js';
import { callbackHealth, everyOperator, moneyPerBucket, pendingRoundCounts, returnPerGame, roundsPerBucket, type FigureRange } from './round-store/reports.js';

export interface TotalsQuery {
  operatorIds: string[] | null;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * Money per operator, currency and UTC day, each kind apart (issue 30 item 2): paid rounds'
 * confirmed stakes, payouts, rollbacks and GGR (stakes − payouts − rollbacks); free-bet rounds'
 * confirmed payouts (the casinos' campaigns: no stake); promo credits (promotions' prizes, by the
 * day of the award), confirmed and still pending. A free-bet or promo payout is never in `payouts`
 * nor in `ggr`.
 */
export async function reconciliationTotals(db: Queryable, q: TotalsQuery) {
  const query = db('reconciliation_rows')
    .select('operator_id', 'currency', db.raw(`to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'debit'), 0) AS stakes`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'credit' AND free_bet_campaign_id IS NULL), 0) AS payouts`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'credit' AND free_bet_campaign_id IS NOT NULL), 0) AS free_bet_payouts`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE type = 'rollback'), 0) AS rollbacks`))
    .select(db.raw(`COUNT(*) FILTER (WHERE type = 'debit') AS debits`))
    .where('status', 'succeeded')
    .groupByRaw('1, 2, 3');
  if (q.operatorIds) query.whereIn('operator_id', q.operatorIds);
  else if (q.from || q.to) query.whereRaw(everyOperator('operator_id'));
  if (q.from) query.where('created_at', '>=', q.from);
  if (q.to) query.where('created_at', '<', q.to);
  const [rows, promos] = await Promise.all([
    query as Promise<
      {
        operator_id: string;
        currency: CurrencyCode;
        day: string;
        stakes: string;
        payouts: string;
        free_bet_payouts: string;
        rollbacks: string;
        debits: string | number;
      }[]
    >,
    awardTotalsByDay(db, q),
  ]);
  type Day = {
    operatorId: string;
    currency: CurrencyCode;
    day: string;
    debits: number;
    stakes: bigint;
    payouts: bigint;
    freeBetPayouts: bigint;
    rollbacks: bigint;
    promoCredits: bigint;
    promoPending: bigint;
    promoPendingCount: number;
  };
  const days = new Map<string, Day>();
  const dayOf = (operatorId: string, currency: CurrencyCode, day: string) => {
    const id = `${day}\u0000${operatorId}\u0000${currency}`;
    let d = days.get(id);
    if (!d) {
      d = {
        operatorId,
        currency,
        day,
        debits: 0,
        stakes: 0n,
        payouts: 0n,
        freeBetPayouts: 0n,
        rollbacks: 0n,
        promoCredits: 0n,
        promoPending: 0n,
        promoPendingCount: 0,
      };
      days.set(id, d);
    }
    return d;
  };
  for (const r of rows) {
    const d = dayOf(r.operator_id, r.currency, r.day);
    d.debits = Number(r.debits);
    d.stakes = toBigInt(r.stakes);
    d.payouts = toBigInt(r.payouts);
    d.freeBetPayouts = toBigInt(r.free_bet_payouts);
    d.rollbacks = toBigInt(r.rollbacks);
  }
  for (const p of promos) {
    const d = dayOf(p.operator_id, p.currency, p.day);
    const amount = toBigInt(String(p.amount ?? '0'));
    if (p.callback_status === 'succeeded') d.promoCredits += amount;
    else {
      d.promoPending += amount;
      d.promoPendingCount += Number(p.count);
    }
  }
  const order = (a: Day, b: Day) =>
    a.day !== b.day
      ? a.day < b.day
        ? 1
        : -1
      : a.operatorId !== b.operatorId
        ? a.operatorId < b.operatorId
          ? -1
          : 1
        : a.currency < b.currency
          ? -1
          : a.currency > b.currency
            ? 1
            : 0;
  return {
    totals: [...days.values()].sort(order).map((d) => {
      const m = (v: bigint) => amountJson(v, d.currency);
      return {
        operatorId: d.operatorId,
        currency: d.currency,
        day: d.day,
        debits: d.debits,
        stakes: m(d.stakes),
        payouts: m(d.payouts),
        rollbacks: m(d.rollbacks),
        ggr: m(d.stakes - d.payouts - d.rollbacks),
        freeBetPayouts: m(d.freeBetPayouts),
        promoCredits: m(d.promoCredits),
        promoPending: m(d.promoPending),
        promoPendingCount: d.promoPendingCount,
      };
    }),
  };
}

/** The CSV's columns: a row's money kind (`paid`, `free_bet`, `promo`), a free bet's campaign, a promo credit's promotion and prize. */
export const CSV_COLUMNS = [
  'createdAt',
  'type',
  'status',
  'operatorId',
  'roundId',
  'playerRef',
  'gameType',
  'amount',
  'currency',
  'casinoTransactionId',
  'idempotencyKey',
  'money',
  'campaignId',
  'promoId',
  'prize',
  'sourceRoundId',
] as const;

const moneyKind = (r: { freeBet?: true; promo?: true }) => (r.promo ? 'promo' : r.freeBet ? 'free_bet' : 'paid');

/** One CSV field: quoted when it must be, and never read as a formula by a spreadsheet. */
export function csvField(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The reconciliation rows as CSV lines, read in pages of `pageSize` with the same cursor as the API. */
export async function* reconciliationCsv(db: Queryable, q: Omit<ReconciliationQuery, 'cursor' | 'limit'>, pageSize = 1000): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let cursor: string | undefined;
  do {
    const page = await reconciliationRows(db, { ...q, cursor, limit: pageSize });
    if (page.rows.length > 0)
      yield (
        page.rows.map((r) => CSV_COLUMNS.map((c) => csvField(c === 'money' ? moneyKind(r) : (r as Record<string, unknown>)[c])).join(',')).join('\r\n') + '\r\n'
      );
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** The series' bucket for a range: minutes up to 3 h, hours up to 3 days, days beyond. */
export function bucketOf(from: string, to: string): FigureRange['bucket'] {
  const span = Date.parse(to) - Date.parse(from);
  return span <= 3 * 3_600_000 ? 'minute' : span <= 3 * 86_400_000 ? 'hour' : 'day';
}

const BUCKET_MINUTES = { minute: 1, hour: 60, day: 1440 } as const;

/** The dashboard: bets per minute, GGR, pending retries, callback health per operator, measured RTP per game. */
export async function dashboard(db: Queryable, q: { operatorIds: string[] | null; from: string; to: string }) {
  const range: FigureRange = { ...q, bucket: bucketOf(q.from, q.to) };
  const [rounds, money, health, games, pending] = await Promise.all([
    roundsPerBucket(db, range),
    moneyPerBucket(db, range),
    callbackHealth(db, range),
    returnPerGame(db, range),
    pendingRoundCounts(db, q.operatorIds),
  ]);
  const ggrByCurrency = new Map<CurrencyCode, bigint>();
  for (const m of money) ggrByCurrency.set(m.currency, (ggrByCurrency.get(m.currency) ?? 0n) + m.stakes - m.payouts - m.rollbacks);
  const minutes = Math.max(1, (Date.parse(q.to) - Date.parse(q.from)) / 60_000);
  const totalRounds = rounds.reduce((a, r) => a + r.rounds, 0);
  return {
    from: q.from,
    to: q.to,
    bucket: range.bucket,
    betsPerMinute: Math.round((totalRounds / minutes) * 100) / 100,
    rounds: totalRounds,
    series: {
      betsPerMinute: rounds.map((r) => ({ t: r.t, value: Math.round((r.rounds / BUCKET_MINUTES[range.bucket]) * 100) / 100 })),
      ggr: money.map((m) => ({ t: m.t, currency: m.currency, value: amountJson(m.stakes - m.payouts - m.rollbacks, m.currency) })),
    },
    ggr: [...ggrByCurrency].map(([currency, v]) => ({ currency, value: amountJson(v, currency) })),
    pendingRetries: pending,
    callbacks: health.map((h) => ({ ...h, errorRate: h.callbacks === 0 ? 0 : Math.round((h.errors / h.callbacks) * 10_000) / 10_000 })),
    rtp: games.map((g) => ({
      gameType: g.gameType,
      currency: g.currency,
      rounds: g.rounds,
      staked: amountJson(g.staked, g.currency),
      paid: amountJson(g.paid, g.currency),
      measured: g.staked === 0n ? null : Number((g.paid * 1_000_000n) / g.staked) / 10_000,
      design: designRtp(g.gameType),
    })),
  };
}

const designCache = new Map<GameType, number>();
/** The game's design RTP in percent (game-core's game-rtp, computed once). */
export function designRtp(game: GameType): number {
  let v = designCache.get(game);
  if (v === undefined) designCache.set(game, (v = gameRtp(game).value));
  return v;
}
