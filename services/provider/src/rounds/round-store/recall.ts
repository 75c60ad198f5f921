/** Game recall (issue 26 item 3; rounds/operator-reports.ts): a player's rounds, newest first, keyset pages. */
import type { CurrencyCode } from '@gp/game-core/money';
import { LIMIT_IN_TEXT, type Queryable } from '../../store/db.js';

export interface RecallRowDb {
  round_id: string;
  game_type: string;
  currency: CurrencyCode;
  amount: string;
  total_staked: string;
  payout: string | null;
  multiplier: string | null;
  status: string;
  free_bet_campaign_id: string | null;
  result: unknown;
  created_at: Date | string;
  settled_at: Date | string | null;
}

/** Up to `limit + 1` rounds of the player in [from, to), after the cursor's (createdAt, roundId) when given. */
export async function playerRoundRows(
  db: Queryable,
  q: { operatorId: string; playerRef: string; from: string; to: string; limit: number },
  after: [string, string] | null,
): Promise<RecallRowDb[]> {
  const query = db('rounds')
    .select(
      'round_id',
      'game_type',
      'currency',
      'amount',
      'total_staked',
      'payout',
      'multiplier',
      'status',
      'free_bet_campaign_id',
      'result',
      'created_at',
      'settled_at',
    )
    .where({ operator_id: q.operatorId, player_ref: q.playerRef })
    .where('created_at', '>=', q.from)
    .where('created_at', '<', q.to)
    .orderBy('created_at', 'desc')
    .orderBy('round_id', 'desc')
    .limit(q.limit + 1, LIMIT_IN_TEXT);
  if (after) query.whereRaw('(created_at, round_id) < (?::timestamptz, ?)', after);
  return (await query) as RecallRowDb[];
}
