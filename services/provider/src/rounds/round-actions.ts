/**
 * The protocol of an action on an active Mines or Blackjack round (DESIGN.md "Active rounds"):
 * find the round and check it belongs to the session's player; then, under the request's
 * idempotency key, take the Redis lock `round:<id>` (owner token, short expiry), reload the
 * round, check it is still `active`, and let the game apply its pure transition. The game
 * writes the new state with `updateRound(..., version)` (or closes the round) in the same
 * transaction that calls `claimKey`: the lock keeps pods from wasting work, the version check
 * is what guarantees exactly once.
 */
import type { GameType } from '@gp/game-core/games';
import { AppError } from '../errors.js';
import { LockBusyError, withLock, type KeyValueStore } from '../infra/kv.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import type { SessionWithToken } from '../sessions/sessions.js';
import type { BetDeps } from './bets.js';
import { floats } from '@gp/game-core/fairness';
import { isUniqueViolation } from '../store/db.js';
import { assertKeyFree, claimKey, publicStatusOf, requestHash, runIdempotent, type IdempotencyScope } from './idempotency.js';
import { insertRoundWithDebit, operatorFor, RoundBusyError, type OpenedRound, type OpenRoundInput } from './money-path.js';
import { getRound, roundFromRow, updateRound, type Round } from './round-store.js';

export interface RoundDeps extends BetDeps {
  kv: KeyValueStore;
}

/** The round of an active-round request: ROUND_NOT_FOUND, or ROUND_SESSION_MISMATCH for another player's session (CONTRACT.md §13). */
export async function roundOfSession(deps: BetDeps, sessionId: string, roundId: string, gameType: GameType): Promise<{ session: SessionWithToken; round: Round }> {
  const session = await deps.sessions.get(deps.db, sessionId);
  const round = await getRound(deps.db, roundId);
  if (!round || round.gameType !== gameType) throw new AppError('ROUND_NOT_FOUND', `no ${gameType} round with this id`);
  if (round.operatorId !== session.operatorId || round.playerRef !== session.playerRef) {
    throw new AppError('ROUND_SESSION_MISMATCH', 'this round belongs to another player');
  }
  return { session, round };
}

export interface RoundActionInput<T> {
  sessionId: string;
  roundId: string;
  gameType: GameType;
  idempotencyKey: string;
  /** The request as it identifies itself for conflicts (action name and its arguments). */
  request: Record<string, unknown>;
  /** Applies the action to the freshly loaded active round. Must claimKey(tx, scope, roundId) in its writing transaction. */
  apply(ctx: { round: Round; session: SessionWithToken; operator: OperatorWithSecret; scope: IdempotencyScope }): Promise<T>;
  /** The answer of a key whose round moved on since its answer was stored. */
  fromRound(round: Round): Promise<T>;
}

export const ROUND_LOCK_TTL_MS = 30_000;

export async function runRoundAction<T>(deps: RoundDeps, input: RoundActionInput<T>): Promise<T> {
  const { session } = await roundOfSession(deps, input.sessionId, input.roundId, input.gameType);
  const scope: IdempotencyScope = {
    operatorId: session.operatorId,
    sessionId: session.sessionId,
    key: input.idempotencyKey,
    requestHash: requestHash({ op: `${input.gameType}:action`, roundId: input.roundId, ...input.request }),
  };
  return runIdempotent(deps.db, {
    scope,
    waitMs: deps.config.idempotencyWaitMs,
    fromRound: input.fromRound,
    execute: async () => {
      try {
        return await withLock(deps.kv, `round:${input.roundId}`, { ttlMs: ROUND_LOCK_TTL_MS, waitMs: deps.config.idempotencyWaitMs }, async () => {
          await assertKeyFree(deps.db, scope);
          const round = await getRound(deps.db, input.roundId);
          if (!round) throw new AppError('ROUND_NOT_FOUND', `no ${input.gameType} round with this id`);
          if (round.status !== 'active') throw new AppError('ROUND_NOT_ACTIVE', `the round is ${publicStatusOf(round)}`).withRound(round.roundId, publicStatusOf(round));
          const operator = await operatorFor(deps, round.operatorId);
          return input.apply({ round, session, operator, scope });
        });
      } catch (err) {
        if (err instanceof LockBusyError) throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'another action on this round is still running; retry shortly');
        if (err instanceof RoundBusyError) {
          const now = await getRound(deps.db, input.roundId);
          const status = now ? publicStatusOf(now) : 'active';
          throw new AppError('ROUND_NOT_ACTIVE', 'the round changed while this action ran; reload it').withRound(input.roundId, status);
        }
        throw err;
      }
    },
  });
}

/** The player's open round of a game, whichever of the player's sessions started it (CONTRACT.md §13). */
export async function openRoundOfPlayer(deps: BetDeps, sessionId: string, gameType: GameType): Promise<Round | null> {
  const session = await deps.sessions.get(deps.db, sessionId);
  const row = await deps
    .db('rounds')
    .where({ operator_id: session.operatorId, player_ref: session.playerRef, game_type: gameType })
    .whereIn('status', ['debit_requested', 'active'])
    .first();
  return row ? roundFromRow(row) : null;
}

/**
 * Opens a Mines or Blackjack round: in one transaction the round with its debit recorded, its
 * state dealt from the committed seed (the outcome is fixed before the player acts, CONTRACT.md
 * §9) and the request's idempotency key. A second open round of the player is
 * ACTIVE_ROUND_EXISTS, before any wallet call (unless the same request won the race on another
 * pod: then this one replays its answer).
 */
export async function openActiveRound(
  deps: RoundDeps,
  scope: IdempotencyScope,
  input: OpenRoundInput & { gameType: 'mines' | 'blackjack' },
  deal: { floats: number; state(floats: number[]): unknown },
): Promise<OpenedRound> {
  try {
    return await deps.db.transaction(async (tx) => {
      const opened = await insertRoundWithDebit(tx, deps, input);
      const { round } = opened;
      const state = deal.state(floats(opened.serverSeed, round.clientSeed, round.nonce, deal.floats));
      const withState = await updateRound(tx, round.roundId, 'debit_requested', { state });
      if (!withState) throw new Error(`round ${round.roundId} vanished while it was opened`);
      await claimKey(tx, scope, round.roundId);
      return { ...opened, round: withState };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'rounds_one_open_per_player')) {
      await assertKeyFree(deps.db, scope);
      const refusal = new AppError('ACTIVE_ROUND_EXISTS', `finish the active ${input.gameType === 'mines' ? 'Mines' : 'Blackjack'} round first`);
      const open = await openRoundOfPlayer(deps, input.session.sessionId, input.gameType);
      throw open ? refusal.withRound(open.roundId, publicStatusOf(open)) : refusal;
    }
    throw err;
  }
}
