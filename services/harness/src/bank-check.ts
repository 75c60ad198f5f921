/**
 * The bank check (issue 16): the casino's ledger (its control API) against every round the
 * provider stored in PostgreSQL, to the minor unit.
 *
 * - no round outside a final status (CONTRACT.md §4);
 * - no idempotency key applied twice by the casino;
 * - no casino transaction for a round the provider does not know;
 * - each applied debit closed by exactly one credit (of its round) or one rollback (of it),
 *   a rollback refunding exactly its debit (0 for a debit the casino never applied);
 * - per round: settled / cashed_out / busted have one credit of the payout and debits standing
 *   for exactly the total staked; cancelled and error rounds leave no money moved;
 * - every player's casino balance = start + payouts − stakes of the settled rounds.
 */
import type pg from 'pg';
import type { LedgerTx } from './casino.js';
import type { Player } from './players.js';

export const FINAL_STATUSES = ['settled', 'cashed_out', 'busted', 'cancelled', 'error'];
export const PAID_STATUSES = ['settled', 'cashed_out', 'busted'];

export interface StoredRoundRow {
  roundId: string;
  operatorId: string;
  playerRef: string;
  gameType: string;
  currency: string;
  status: string;
  amount: bigint;
  totalStaked: bigint;
  payout: bigint | null;
}

/** Every round of the run's database (the provider's `rounds` table). */
export async function storedRounds(db: pg.Pool): Promise<StoredRoundRow[]> {
  const res = await db.query<Record<string, string | null>>(
    'SELECT round_id, operator_id, player_ref, game_type, currency, status, amount::text AS amount, total_staked::text AS total_staked, payout::text AS payout FROM rounds',
  );
  return res.rows.map((r) => ({
    roundId: r.round_id!,
    operatorId: r.operator_id!,
    playerRef: r.player_ref!,
    gameType: r.game_type!,
    currency: r.currency!,
    status: r.status!,
    amount: BigInt(r.amount!),
    totalStaked: BigInt(r.total_staked!),
    payout: r.payout == null ? null : BigInt(r.payout),
  }));
}

/** Rounds not in a final status, by status. */
export async function openRounds(db: pg.Pool): Promise<Record<string, number>> {
  const res = await db.query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM rounds WHERE status <> ALL($1::text[]) GROUP BY status`, [
    FINAL_STATUSES,
  ]);
  return Object.fromEntries(res.rows.map((r) => [r.status, Number(r.n)]));
}

export interface BankCheckInput {
  ledger: LedgerTx[];
  rounds: StoredRoundRow[];
  players: Pick<Player, 'playerRef' | 'operatorId' | 'currency' | 'startBalance'>[];
  /** The casino's balance of each player now (key `operatorId playerRef`). */
  balances: Map<string, bigint>;
}

export interface BankCheckResult {
  discrepancies: string[];
  rounds: number;
  byStatus: Record<string, number>;
  transactions: number;
  debits: number;
  credits: number;
  rollbacks: number;
}

export const playerKey = (p: { operatorId: string; playerRef: string }) => `${p.operatorId} ${p.playerRef}`;

export function bankCheck(input: BankCheckInput): BankCheckResult {
  const out: string[] = [];
  const byStatus: Record<string, number> = {};
  const rounds = new Map(input.rounds.map((r) => [r.roundId, r]));

  // no idempotency key applied twice
  const seen = new Set<string>();
  for (const tx of input.ledger) {
    const k = `${tx.operatorId} ${tx.idempotencyKey}`;
    if (seen.has(k)) out.push(`idempotency key ${tx.idempotencyKey} applied twice by the casino`);
    seen.add(k);
  }

  const txOf = new Map<string, LedgerTx[]>();
  for (const tx of input.ledger) {
    if (!rounds.has(tx.roundId)) out.push(`casino ${tx.type} ${tx.idempotencyKey} (${tx.amount}) for a round the provider does not know`);
    const list = txOf.get(tx.roundId);
    if (list) list.push(tx);
    else txOf.set(tx.roundId, [tx]);
  }

  const expected = new Map<string, bigint>(input.players.map((p) => [playerKey(p), p.startBalance]));
  for (const r of input.rounds) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const problem = (what: string) => out.push(`round ${r.roundId} (${r.gameType}, ${r.status}): ${what}`);
    if (!FINAL_STATUSES.includes(r.status)) problem('not in a final status');
    const txs = txOf.get(r.roundId) ?? [];
    const debits = txs.filter((t) => t.type === 'debit');
    const credits = txs.filter((t) => t.type === 'credit');
    const rollbacks = txs.filter((t) => t.type === 'rollback');
    const rollbacksOf = (key: string) => rollbacks.filter((t) => t.debitIdempotencyKey === key);

    let standing = 0n;
    for (const d of debits) {
      const rb = rollbacksOf(d.idempotencyKey);
      const closers = rb.length + (rb.length === 0 ? credits.length : 0);
      if (FINAL_STATUSES.includes(r.status) && closers !== 1) problem(`debit ${d.idempotencyKey} closed by ${closers} credits/rollbacks`);
      if (rb.length >= 1 && rb[0]!.amount !== d.amount) problem(`rollback of ${d.idempotencyKey} refunds ${rb[0]!.amount}, the debit took ${d.amount}`);
      if (rb.length === 0) standing += d.amount;
    }
    for (const rb of rollbacks) {
      const debit = debits.find((d) => d.idempotencyKey === rb.debitIdempotencyKey);
      if (!debit && rb.amount !== 0n) problem(`rollback ${rb.idempotencyKey} refunds ${rb.amount} of a debit never applied`);
    }
    if (credits.length > 1) problem(`${credits.length} credits`);

    if (PAID_STATUSES.includes(r.status)) {
      const bet = debits.find((d) => d.idempotencyKey === `${r.roundId}:debit`);
      if (!bet) problem('no debit of the stake in the casino ledger');
      else if (bet.amount !== r.amount) problem(`stake debited ${bet.amount}, the round says ${r.amount}`);
      if (credits.length !== 1) problem(`${credits.length} credits instead of one`);
      else if (credits[0]!.amount !== (r.payout ?? -1n)) problem(`credit ${credits[0]!.amount} ≠ payout ${r.payout}`);
      if (standing !== r.totalStaked) problem(`debits standing ${standing} ≠ total staked ${r.totalStaked}`);
      const k = playerKey(r);
      if (expected.has(k)) expected.set(k, expected.get(k)! + (r.payout ?? 0n) - r.totalStaked);
    } else if (r.status === 'cancelled' || r.status === 'error') {
      if (credits.length) problem('a credit on a round that was not settled');
      if (standing !== 0n) problem(`${standing} still debited`);
      if (r.status === 'cancelled' && rollbacksOf(`${r.roundId}:debit`).length !== 1) problem('cancelled without exactly one rollback of its stake');
    }
  }

  for (const p of input.players) {
    const k = playerKey(p);
    const balance = input.balances.get(k);
    if (balance === undefined) out.push(`player ${k}: no casino balance`);
    else if (balance !== expected.get(k))
      out.push(`player ${k}: casino balance ${balance} ≠ start ${p.startBalance} + payouts − stakes of settled rounds = ${expected.get(k)}`);
  }

  return {
    discrepancies: out,
    rounds: input.rounds.length,
    byStatus,
    transactions: input.ledger.length,
    debits: input.ledger.filter((t) => t.type === 'debit').length,
    credits: input.ledger.filter((t) => t.type === 'credit').length,
    rollbacks: input.ledger.filter((t) => t.type === 'rollback').length,
  };
}
