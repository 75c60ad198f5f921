/**
 * The opening statement of every round, paid or free (money-path/opening.ts): the nonce of the
 * player's seed pair taken, the round inserted with its first callback, the request's key claimed,
 * in one statement (one transaction). The statements of a round's later steps are in writes.ts.
 */
import { hotQuery, type Queryable, toBigInt, toIso } from '../../store/db.js';
import {
  type Callback,
  callbackRecorded,
  callbackValues,
  insertCallbackFrom,
  type KeyClaim,
  multiplierToColumn,
  type NewCallback,
  type NewRound,
  type Round,
  type RoundRow,
} from './rows.js';
import { roundTables } from './partitions.js';
import { claimKeyCte } from './writes.js';

/**
 * How a round's stake is paid: its debit, recorded in the opening statement (the round opens
 * `debit_requested`; the debit is sent next), or one of the player's free bets of a campaign (issue
 * 17; the caller's transaction has used it): no debit, ever; the round opens `active` with its dealt
 * state, or, a settled game, `credit_pending` with its result fixed and its one credit recorded.
 */
export type OpeningFunding =
  | { kind: 'debit'; debit: NewCallback }
  | { kind: 'free-bet'; campaignId: string; settled?: { result: unknown; multiplier4: bigint; payout: bigint; credit: NewCallback } };

export interface OpenRound {
  round: Omit<NewRound, 'seedPairId' | 'nonce' | 'clientSeed' | 'leaseUntil'> & { leaseUntil: Date | null };
  funding: OpeningFunding;
  /** a new client seed for the pair (CONTRACT.md §9), else the pair's */
  clientSeed: string | undefined;
  claim: KeyClaim | null;
  /** The state or outcome was computed from this pair at this nonce; the statement applies only if it is still the next one. */
  expect?: { seedPairId: string; nonce: bigint };
}

/**
 * Opens a round in one statement, paid or free: takes the nonce of the player's current seed pair,
 * inserts the round (`funding` above) with its callback (the debit, or a settled free bet's
 * credit) and claims the request's idempotency key. Null when the player has no current pair (or,
 * with `expect`, when the nonce moved on): nothing was written. A unique violation (the key taken,
 * a second open round) aborts the whole statement.
 */
export async function insertOpenRound(
  db: Queryable,
  o: OpenRound,
): Promise<{ round: Round; callback: Callback | null; serverSeed: string; serverSeedHash: string } | null> {
  const r = o.round;
  const f = o.funding;
  const settled = f.kind === 'free-bet' ? f.settled : undefined;
  const callback = f.kind === 'debit' ? f.debit : settled?.credit;
  const values: unknown[] = [o.clientSeed ?? null, r.operatorId, r.playerRef];
  const params = JSON.stringify(r.params);
  let guard = '';
  if (o.expect) {
    guard = ' AND id = ? AND next_nonce = ?';
    values.push(o.expect.seedPairId, o.expect.nonce.toString());
  }
  const status = f.kind === 'debit' ? 'debit_requested' : settled ? 'credit_pending' : 'active';
  values.push(r.roundId, r.roundId, r.operatorId, r.playerRef, r.sessionId, r.gameType, r.currency, r.amount.toString(), r.amount.toString(), params);
  const state = r.state === undefined ? null : JSON.stringify(r.state);
  const result = settled ? JSON.stringify(settled.result) : null;
  values.push(status, state);
  values.push(result, settled ? multiplierToColumn(settled.multiplier4) : null, settled ? settled.payout.toString() : null, settled ? 'settled' : null);
  values.push(r.leaseUntil, f.kind === 'free-bet' ? f.campaignId : null);
  const t = roundTables(db, r.roundId);
  let cb = '';
  if (callback) {
    cb = `, cb AS (${insertCallbackFrom('r', t.callbacks)})`;
    values.push(...callbackValues(callback));
  }
  const claim = o.claim ? claimKeyCte(db, o.claim) : { sql: '', values: [], tag: '' };
  values.push(...claim.values);
  const sql = `WITH pair AS (
      UPDATE seed_pairs SET next_nonce = next_nonce + 1, client_seed = COALESCE(?::text, client_seed)
      WHERE operator_id = ? AND player_ref = ? AND NOT revealed${guard}
      RETURNING id, next_nonce - 1 AS nonce, client_seed, server_seed, server_seed_hash
    ), r AS (
      INSERT INTO ${t.rounds} (round_id, created_at, operator_id, player_ref, session_id, game_type, currency, amount, total_staked, params, seed_pair_id, nonce, client_seed, status, state, result, multiplier, payout, close_status, lease_until, free_bet_campaign_id)
      SELECT ?, gp_round_time(?::text), ?, ?, ?, ?, ?, ?, ?, ?::jsonb, pair.id, pair.nonce, pair.client_seed, ?, ?::jsonb, ?::jsonb, ?::numeric, ?::numeric, ?, ?::timestamptz, ? FROM pair
      RETURNING round_id, created_at, updated_at
    )${cb}${claim.sql}
    SELECT r.created_at, r.updated_at, pair.id AS seed_pair_id, pair.nonce, pair.client_seed, ${callback ? 'cb.id AS cb_id, cb.created_at AS cb_created_at, cb.updated_at AS cb_updated_at, ' : ''}pair.server_seed AS pair_server_seed, pair.server_seed_hash AS pair_server_seed_hash
    FROM r, pair${callback ? ', cb' : ''}`;
  const name = `gp_open_round${f.kind === 'debit' ? '' : settled ? '_free_settled' : '_free'}${o.expect ? '_dealt' : ''}${o.claim ? '_claim' : ''}${t.tag}${claim.tag}`;
  const res = await hotQuery(db, name, sql, values);
  const row = (
    res.rows as (Pick<RoundRow, 'created_at' | 'updated_at' | 'seed_pair_id' | 'nonce' | 'client_seed'> & {
      cb_id?: string;
      cb_created_at?: Date;
      cb_updated_at?: Date;
      pair_server_seed: string;
      pair_server_seed_hash: string;
    })[]
  )[0];
  if (!row) return null;
  // RETURNING only what the statement decides (the pair's nonce and seed, the times): the rest is what was written
  const round: Round = {
    roundId: r.roundId,
    operatorId: r.operatorId,
    playerRef: r.playerRef,
    sessionId: r.sessionId,
    gameType: r.gameType,
    currency: r.currency,
    amount: r.amount,
    totalStaked: r.amount,
    params: JSON.parse(params) as Record<string, unknown>,
    seedPairId: String(row.seed_pair_id),
    nonce: toBigInt(row.nonce),
    clientSeed: row.client_seed,
    status,
    state: state === null ? null : (JSON.parse(state) as unknown),
    result: result === null ? null : (JSON.parse(result) as unknown),
    multiplier4: settled ? settled.multiplier4 : null,
    payout: settled ? settled.payout : null,
    closeStatus: settled ? 'settled' : null,
    errorCode: null,
    errorMessage: null,
    version: 0,
    leaseUntil: r.leaseUntil === null ? null : toIso(r.leaseUntil),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    settledAt: null,
    freeBetCampaignId: f.kind === 'free-bet' ? f.campaignId : null,
  };
  const recorded =
    callback && row.cb_id !== undefined
      ? callbackRecorded({ ...callback, roundId: round.roundId }, { cb_id: row.cb_id, cb_created_at: row.cb_created_at!, cb_updated_at: row.cb_updated_at! })
      : null;
  return { round, callback: recorded, serverSeed: row.pair_server_seed, serverSeedHash: row.pair_server_seed_hash };
}
