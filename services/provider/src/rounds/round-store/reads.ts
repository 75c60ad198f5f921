/**
 * Reads of rounds and their wallet callbacks: a round, a round with what its answer shows (one
 * statement), a player's open round, My bets, a round's callbacks.
 */
import type { Knex } from 'knex';
import type { GameType } from '@gp/game-core/games';
import { hotQuery, type Queryable, toBigInt, LIMIT_IN_TEXT } from '../../store/db.js';
import {
  type Callback,
  callbackFromRow,
  type CallbackRow,
  callbackKeyOfRound,
  type Round,
  roundAt,
  roundAtValues,
  roundFromRow,
  type RoundRow,
} from './rows.js';

export async function getRound(db: Queryable, roundId: string, opts: { forUpdate?: boolean } = {}): Promise<Round | null> {
  const q = db<RoundRow>('rounds').where({ round_id: roundId }).whereRaw(roundAt('created_at'), roundAtValues(roundId));
  const row = await (opts.forUpdate ? q.forUpdate().first() : q.first());
  return row ? roundFromRow(row) : null;
}

/** The player's open round of a game (debit on its way or playable), whichever session started it. */
export async function openRoundOfPlayer(db: Queryable, operatorId: string, playerRef: string, gameType: GameType): Promise<Round | null> {
  const row = await db<RoundRow>('rounds')
    .whereIn('round_id', db('open_rounds').select('round_id').where({ operator_id: operatorId, player_ref: playerRef, game_type: gameType }))
    .whereIn('status', ['debit_requested', 'active'])
    .first();
  return row ? roundFromRow(row) : null;
}

/** An open Mines or Blackjack round under a seed pair (its outcome hangs on that pair's secret seed). */
export async function openRoundUnderSeedPair(db: Queryable, seedPairId: string): Promise<Round | null> {
  const open = db('open_rounds as o').join('seed_pairs as s', (j) => {
    j.on('s.operator_id', 'o.operator_id').andOn('s.player_ref', 'o.player_ref');
  });
  const row = await db<RoundRow>('rounds')
    .whereIn('round_id', open.select('o.round_id').where('s.id', seedPairId))
    .where({ seed_pair_id: seedPairId })
    .whereIn('status', ['debit_requested', 'active'])
    .whereIn('game_type', ['mines', 'blackjack'])
    .first();
  return row ? roundFromRow(row) : null;
}

/**
 * A player's rounds, newest first (My bets on the game page): `before` is the round id the
 * previous page ended with; rounds created at the same instant are ordered by id. Every round of
 * the player (operator + playerRef), whichever session placed it, and no other player's.
 */
export async function roundsOfPlayer(
  db: Queryable,
  operatorId: string,
  playerRef: string,
  opts: { limit: number; before?: string | undefined },
): Promise<Round[]> {
  const q = db<RoundRow>('rounds').where({ operator_id: operatorId, player_ref: playerRef });
  if (opts.before !== undefined) {
    q.whereRaw('(created_at, round_id) < (SELECT created_at, round_id FROM rounds WHERE round_id = ? AND operator_id = ? AND player_ref = ?)', [
      opts.before,
      operatorId,
      playerRef,
    ]);
  }
  const rows = await q
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'round_id', order: 'desc' },
    ])
    .limit(opts.limit, LIMIT_IN_TEXT);
  return rows.map((r) => roundFromRow(r as RoundRow));
}

/** A round with what its answer shows: its callbacks (by id), its seed pair, the player's latest reported balance. */
export interface RoundWithContext {
  round: Round;
  callbacks: Callback[];
  pair: { serverSeedHash: string; serverSeed: string; revealed: boolean };
  /** the player's latest balance in the round's currency, or null */
  balance: bigint | null;
}

/**
 * The player's latest balance (CONTRACT.md §12), a LATERAL subquery on the columns `op` and
 * `player` answering one row (`balance`, `currency`) or none: the newer of the player's
 * `player_balances` row (their launch, a Mines or Blackjack round's answers, the retry job's) and the
 * balance an instant game's request kept in its round (`reported_balance`, with its confirmed
 * credit's answer, in the statement that made the round final: its `updated_at` is the balance's
 * time; writes.ts `storeCreditAndFinish`), of the player's latest three rounds. Three, not one: the
 * latest may be a round in play whose answer carried no balance yet, or a Mines round whose debit's
 * balance went to the player's row; and never more, so a read costs the same however long the
 * player's history (the index `rounds_player_recent`).
 */
export const latestBalanceOf = (op: string, player: string) => `LATERAL (
    SELECT x.balance, x.currency FROM (
      SELECT b.balance, b.currency, b.reported_at AS at FROM player_balances b WHERE b.operator_id = ${op} AND b.player_ref = ${player}
      UNION ALL
      SELECT l.reported_balance, l.currency, l.updated_at FROM (
        SELECT lr.reported_balance, lr.currency, lr.updated_at FROM rounds lr WHERE lr.operator_id = ${op} AND lr.player_ref = ${player}
        ORDER BY lr.created_at DESC, lr.round_id DESC LIMIT 3
      ) l
    ) x WHERE x.balance IS NOT NULL ORDER BY x.at DESC LIMIT 1
  )`;

/** The player's latest reported balance in `currency` (`latestBalanceOf`), or null when none was reported in it. */
export async function latestBalance(db: Queryable, operatorId: string, playerRef: string, currency: string): Promise<bigint | null> {
  const res = await hotQuery(
    db,
    'gp_latest_balance',
    `SELECT lb.balance::text AS balance, lb.currency FROM (SELECT ?::text AS op, ?::text AS player) p, ${latestBalanceOf('p.op', 'p.player')} lb`,
    [operatorId, playerRef],
  );
  const row = (res.rows as { balance: string; currency: string }[])[0];
  return row && row.currency === currency ? toBigInt(row.balance) : null;
}

/** The round, its callbacks, its seed pair and the player's latest balance, in one statement; null when unknown. */
export async function getRoundWithContext(db: Queryable, roundId: string): Promise<RoundWithContext | null> {
  const sql = `SELECT r.*,
      (SELECT COALESCE(json_agg(to_jsonb(c) || jsonb_build_object('id', c.id::text, 'amount', c.amount::text) ORDER BY c.id), '[]'::json) FROM wallet_callbacks c WHERE ${callbackKeyOfRound('c.idempotency_key', 'r.round_id')} AND c.round_created_at = r.created_at AND c.round_id = r.round_id) AS ctx_callbacks,
      p.server_seed_hash AS ctx_seed_hash, p.server_seed AS ctx_seed, p.revealed AS ctx_revealed, b.balance::text AS ctx_balance, b.currency AS ctx_balance_currency
    FROM rounds r JOIN seed_pairs p ON p.id = r.seed_pair_id
    LEFT JOIN ${latestBalanceOf('r.operator_id', 'r.player_ref')} b ON true
    WHERE r.round_id = ? AND ${roundAt('r.created_at')}`;
  const res = await hotQuery(db, 'gp_round_with_context', sql, [roundId, ...roundAtValues(roundId)]);
  const row = (
    res.rows as (RoundRow & {
      ctx_callbacks: unknown;
      ctx_seed_hash: string;
      ctx_seed: string;
      ctx_revealed: boolean;
      ctx_balance: string | null;
      ctx_balance_currency: string | null;
    })[]
  )[0];
  if (!row) return null;
  const raw = typeof row.ctx_callbacks === 'string' ? (JSON.parse(row.ctx_callbacks) as CallbackRow[]) : (row.ctx_callbacks as CallbackRow[]);
  const round = roundFromRow(row);
  return {
    round,
    callbacks: raw.map(callbackFromRow),
    pair: { serverSeedHash: row.ctx_seed_hash, serverSeed: row.ctx_seed, revealed: row.ctx_revealed },
    balance: row.ctx_balance !== null && row.ctx_balance_currency === round.currency ? toBigInt(row.ctx_balance) : null,
  };
}

export async function getCallback(db: Queryable, idempotencyKey: string): Promise<Callback | null> {
  // every key begins with its round's id (CHECK wallet_callbacks_key_of_round): its month is known
  const roundId = idempotencyKey.split(':')[0] ?? '';
  const row = await db<CallbackRow>('wallet_callbacks')
    .where({ idempotency_key: idempotencyKey })
    .whereRaw(roundAt('round_created_at'), roundAtValues(roundId))
    .first();
  return row ? callbackFromRow(row) : null;
}

export async function callbacksOfRound(db: Queryable, roundId: string): Promise<Callback[]> {
  const rows = await db<CallbackRow>('wallet_callbacks')
    .whereRaw(callbackKeyOfRound('idempotency_key', '?::text'), [roundId, roundId])
    .whereRaw(roundAt('round_created_at'), roundAtValues(roundId))
    .where({ round_id: roundId })
    .orderBy('id');
  return rows.map(callbackFromRow);
}

/** The exact database time a callback was recorded (a subquery: no precision lost on the way). */
export function callbackCreatedAt(db: Queryable, idempotencyKey: string): Knex.QueryBuilder {
  const roundId = idempotencyKey.split(':')[0] ?? '';
  return db('wallet_callbacks').select('created_at').where({ idempotency_key: idempotencyKey }).whereRaw(roundAt('round_created_at'), roundAtValues(roundId));
}
