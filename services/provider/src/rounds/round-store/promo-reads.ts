/**
 * The promotions' reads of `rounds` (issue 30, docs/promotions.md "What counts"): one aggregate
 * query per tournament for its standings, and the qualifying bets of a prize drop. Nothing here
 * runs on the bet's path: a pass or a cached endpoint calls these, and no promotion writes a
 * round. A round counts when it is a paid round (never a free bet) of the promotion's operator
 * and games, started in the window with a stake of at least the minimum, of a player of the
 * promotion, and its outcome is final: `settled`, `cashed_out`, `busted`, or `credit_pending` (the
 * outcome is final, only the casino's confirmation is missing). Rolled-back (`cancelled`,
 * `rollback_pending`), refused (`error`) and open rounds never count.
 */
import type { Knex } from 'knex';
import { sqlLimit, type Queryable } from '../../store/db.js';

export const SCORED_STATUSES = ['settled', 'cashed_out', 'busted', 'credit_pending'] as const;

export type ScoringRule = 'multiplier' | 'wagered' | 'profit' | 'biggestWin';

export interface QualifyingRule {
  promoId: string;
  operatorId: string;
  games: string[];
  minBet: bigint;
  startsAt: string;
  endsAt: string;
  allPlayers: boolean;
}

export interface StandingRow {
  rank: number;
  playerRef: string;
  /** exact decimal text: minor units for wagered/profit/biggestWin, the multiplier for multiplier */
  score: string;
  reachedAt: string;
  rounds: number;
}

const VALUE: Record<ScoringRule, string> = {
  multiplier: 'r.multiplier',
  wagered: 'r.total_staked',
  profit: 'COALESCE(r.payout, 0) - r.total_staked',
  biggestWin: 'COALESCE(r.payout, 0)',
};

function qualifying(rule: QualifyingRule, value: string): { sql: string; bindings: Knex.Value[] } {
  const players = rule.allPlayers ? '' : 'AND r.player_ref IN (SELECT pp.player_ref FROM promotion_players pp WHERE pp.promo_id = ?)';
  return {
    sql: `SELECT r.player_ref, r.round_id, COALESCE(r.settled_at, r.created_at) AS t, ${value} AS v
            FROM rounds r
           WHERE r.operator_id = ? AND r.created_at >= ? AND r.created_at < ?
             AND r.status IN (${SCORED_STATUSES.map(() => '?').join(',')})
             AND r.free_bet_campaign_id IS NULL
             AND r.game_type IN (${rule.games.map(() => '?').join(',')})
             AND r.amount >= ? ${players}`,
    bindings: [
      rule.operatorId,
      rule.startsAt,
      rule.endsAt,
      ...SCORED_STATUSES,
      ...rule.games,
      rule.minBet.toString(),
      ...(rule.allPlayers ? [] : [rule.promoId]),
    ],
  };
}

/**
 * The standings of a tournament, best first: one statement. Ties break by who reached the score
 * first: for `multiplier` and `biggestWin` the time of the first round that made the best value;
 * for `wagered` and `profit` the time of the last round that changed the total (the moment the
 * total became what it is); then by that round's id. A round's time is its settlement time, or
 * its start while its credit is pending.
 */
export async function tournamentStandings(db: Queryable, rule: QualifyingRule, scoring: ScoringRule): Promise<StandingRow[]> {
  const q = qualifying(rule, VALUE[scoring]);
  const best =
    scoring === 'multiplier' || scoring === 'biggestWin'
      ? `SELECT DISTINCT ON (player_ref) player_ref, v AS score, t AS reached_at, round_id AS deciding,
                count(*) OVER (PARTITION BY player_ref) AS rounds
           FROM q ORDER BY player_ref, v DESC, t, round_id`
      : `SELECT player_ref, sum(v) AS score,
                COALESCE(max(t) FILTER (WHERE v <> 0), min(t)) AS reached_at,
                COALESCE((array_agg(round_id ORDER BY t DESC, round_id DESC) FILTER (WHERE v <> 0))[1], min(round_id)) AS deciding,
                count(*) AS rounds
           FROM q GROUP BY player_ref`;
  const res = await db.raw(
    `WITH q AS (${q.sql}), best AS (${best})
     SELECT player_ref, score::text AS score, reached_at, rounds,
            row_number() OVER (ORDER BY score DESC, reached_at, deciding) AS rank
       FROM best ORDER BY rank`,
    q.bindings,
  );
  return (res.rows as { player_ref: string; score: string; reached_at: Date | string; rounds: string | number; rank: string | number }[]).map((r) => ({
    rank: Number(r.rank),
    playerRef: r.player_ref,
    score: r.score,
    reachedAt: new Date(r.reached_at).toISOString(),
    rounds: Number(r.rounds),
  }));
}

export interface DropCandidate {
  roundId: string;
  playerRef: string;
}

/**
 * A drop's qualifying bets not drawn yet, started since `since` (by the (operator_id, created_at)
 * index, not a scan of the window), oldest first (settlement time, then round id). The pass looks
 * back a couple of minutes each time and sweeps the whole window once after the end, so a long
 * Mines or Blackjack round is drawn at the latest in that last sweep, before the seed is revealed.
 */
export async function undrawnDropBets(db: Queryable, rule: QualifyingRule, since: string, limit: number): Promise<DropCandidate[]> {
  const q = qualifying({ ...rule, startsAt: new Date(Math.max(Date.parse(since), Date.parse(rule.startsAt))).toISOString() }, '0');
  const res = await db.raw(
    `SELECT x.round_id, x.player_ref FROM (${q.sql}) x
      WHERE NOT EXISTS (SELECT 1 FROM prize_drop_entries e WHERE e.promo_id = ? AND e.round_id = x.round_id)
      ORDER BY x.t, x.round_id LIMIT ${sqlLimit(limit)}`,
    [...q.bindings, rule.promoId],
  );
  return (res.rows as { round_id: string; player_ref: string }[]).map((r) => ({ roundId: r.round_id, playerRef: r.player_ref }));
}
