/**
 * Abandoned active rounds (issues "Mines" and "Blackjack"): the retry job closes Mines and
 * Blackjack rounds nobody touched for the operator's `abandonedRoundPolicy.afterHours`
 * (default 24 h), as the policy says (operators/operator-schema.ts). Each game registers how it
 * closes a round in ABANDONED_ROUND_HANDLERS; rounds are claimed with a lease and
 * FOR UPDATE SKIP LOCKED, like the other retries.
 */
import type { Knex } from 'knex';
import type { GameType } from '@gp/game-core/games';
import type { AbandonedRoundPolicy } from '../operators/operator-schema.js';
import { leaseMs } from './money-path.js';
import { closeAbandonedMinesRound } from './mines.js';
import { closeAbandonedBlackjackRound } from './blackjack.js';
import type { RetryFilter, RetryItem } from './retries.js';
import type { RoundDeps } from './round-actions.js';
import { roundFromRow, updateRound, type Round } from './round-store.js';

/** Closes one abandoned round as the policy says; answers its retry item, or null when the policy keeps it open. */
export type AbandonedRoundHandler = (deps: RoundDeps, round: Round, policy: AbandonedRoundPolicy) => Promise<RetryItem | null>;

export const ABANDONED_ROUND_HANDLERS: Partial<Record<GameType, AbandonedRoundHandler>> = { mines: closeAbandonedMinesRound, blackjack: closeAbandonedBlackjackRound };

export async function sweepAbandonedRounds(deps: RoundDeps, filter: RetryFilter, handlers = ABANDONED_ROUND_HANDLERS): Promise<RetryItem[]> {
  const items: RetryItem[] = [];
  const operators = filter.operatorId ? [await deps.operators.get(deps.db, filter.operatorId)] : await deps.operators.list(deps.db);
  let budget = filter.limit;
  for (const op of operators) {
    if (!op || budget <= 0) continue;
    for (const [gameType, handler] of Object.entries(handlers) as [GameType, AbandonedRoundHandler][]) {
      const policy = op.abandonedRoundPolicy;
      if ((gameType === 'mines' && policy.mines === 'keep_open') || (gameType === 'blackjack' && policy.blackjack === 'keep_open')) continue;
      const idleSince = new Date(Date.now() - policy.afterHours * 3_600_000);
      const lease = new Date(Date.now() + leaseMs(deps.config));
      const rounds = await deps.db.transaction(async (tx) => {
        const ids = tx('rounds')
          .select('round_id')
          .where({ operator_id: op.operatorId, game_type: gameType, status: 'active' })
          .andWhere('updated_at', '<', idleSince)
          .andWhere((q: Knex.QueryBuilder) => {
            q.whereNull('lease_until').orWhere('lease_until', '<', tx.fn.now());
          })
          .orderBy('updated_at')
          .limit(budget)
          .forUpdate()
          .skipLocked();
        if (filter.playerRef) ids.andWhere('player_ref', filter.playerRef);
        const rows = await tx('rounds').whereIn('round_id', ids).update({ lease_until: lease }).returning('*');
        return rows.map(roundFromRow);
      });
      budget -= rounds.length;
      for (const round of rounds) {
        try {
          const item = await handler(deps, round, policy);
          if (item) items.push(item);
          // Kept open by the policy: its idle clock starts again, so it does not crowd out the others.
          else await deps.db('rounds').where({ round_id: round.roundId, status: 'active' }).update({ updated_at: deps.db.fn.now() });
        } catch {
          // Left for the next run (its lease is released below); the other rounds go on.
          items.push({ roundId: round.roundId, operation: 'credit', outcome: 'pending' });
        } finally {
          await updateRound(deps.db, round.roundId, 'active', { leaseUntil: null });
        }
      }
    }
  }
  return items;
}
