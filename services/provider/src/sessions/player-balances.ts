/**
 * The latest balance the casino reported for each player (CONTRACT.md §12): every confirmed
 * validate/balance/debit/credit/rollback answer that carries a balance updates it, so an answer
 * to a round's POST that moved no money (a safe Mines reveal, a Blackjack hit) still carries the
 * player's balance without polling the casino. Data access for the `player_balances` table.
 */
import type { CurrencyCode } from '@gp/game-core/money';
import { toBigInt, type Queryable } from '../store/db.js';

export interface ReportedBalance {
  operatorId: string;
  playerRef: string;
  currency: CurrencyCode;
  balance: bigint;
}

export async function rememberBalance(db: Queryable, b: ReportedBalance): Promise<void> {
  await db('player_balances')
    .insert({ operator_id: b.operatorId, player_ref: b.playerRef, currency: b.currency, balance: b.balance.toString(), reported_at: db.fn.now() })
    .onConflict(['operator_id', 'player_ref'])
    .merge(['currency', 'balance', 'reported_at']);
}

/** The player's latest reported balance in `currency`, or null when none was reported in it. */
export async function latestBalance(db: Queryable, operatorId: string, playerRef: string, currency: CurrencyCode): Promise<bigint | null> {
  const row: { balance: string; currency: string } | undefined = await db('player_balances')
    .where({ operator_id: operatorId, player_ref: playerRef })
    .first('balance', 'currency');
  return row && row.currency === currency ? toBigInt(row.balance) : null;
}
