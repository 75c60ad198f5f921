/**
 * The latest balance the casino reported for each player (CONTRACT.md §12): every confirmed
 * validate/balance/debit/credit/rollback answer that carries a balance updates it, so an answer
 * to a round's POST that moved no money (a safe Mines reveal, a Blackjack hit) still carries the
 * player's balance without polling the casino. Data access for the `player_balances` table; an
 * instant game's credit keeps its balance in its round instead, and the player's latest balance is
 * the newer of the two (round-store/reads.ts `latestBalance`).
 */
import type { CurrencyCode } from '@gp/game-core/money';
import type { Queryable } from '../store/db.js';

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
