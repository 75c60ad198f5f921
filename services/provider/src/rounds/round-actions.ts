/**
 * The protocol of a request that opens or acts on a round, shared by every game:
 *
 *  - opening (POST /api/bets, Mines and Blackjack start): the idempotency key is looked up
 *    first; only a key seen for the first time meets `openingChecks` (operator, game, session
 *    game, currency, wallet circuit), which can change over time (CONTRACT.md §13);
 *  - acting on an active Mines or Blackjack round (DESIGN.md "Active rounds"): under the
 *    request's idempotency key, take the Redis lock `round:<id>` (owner token, short expiry), load
 *    the round with what its answer shows (one statement), check it is the session player's and
 *    still `active`, and let the game apply its pure transition. The game writes the new state at
 *    the version it read (`advanceRound`, or closes the round) in the statement or transaction
 *    that claims the key: the lock keeps pods from wasting work, the version check is what
 *    guarantees exactly once.
 */
import { floats } from '@gp/game-core/fairness';
import type { GameType } from '@gp/game-core/games';
import { AppError } from '../errors.js';
import { LockBusyError, withLock, type KeyValueStore } from '../infra/kv.js';
import { annotateRound } from '../infra/tracing.js';
import type { AbandonedRoundPolicy, OperatorWithSecret } from '../operators/operator-schema.js';
import { checkSessionGame } from '../sessions/session-game.js';
import type { SessionService, SessionWithToken } from '../sessions/sessions.js';
import { isUniqueViolation } from '../store/db.js';
import { stringifyJson } from '../infra/json.js';
import { runIdempotent, scopeOf, StoredAnswer, type IdempotencyScope } from './idempotency.js';
import { keyTakenOr, operatorFor, RoundBusyError, type MoneyDeps } from './money-path/callbacks.js';
import { type Funding, openRound, type OpenedRound, type OpenRoundInput } from './money-path/opening.js';
import { advanceActiveRound } from './round-store/writes.js';
import { getRound, getRoundWithContext, openRoundOfPlayer, type RoundWithContext } from './round-store/reads.js';
import type { Round } from './round-store/rows.js';
import { publicStatusOf } from './round-status.js';
import { checkRoundStart, type RoundStart } from './round-start-rules.js';

/** What a round's requests need: the money path's parts, the sessions and Redis (locks). */
export interface RoundDeps extends MoneyDeps {
  sessions: SessionService;
  kv: KeyValueStore;
}

/**
 * Operator and game checks of a round-opening request. They can change over time (an admin
 * disables a game, the wallet circuit opens), so they run only for a key seen for the first time:
 * a key that already reached the wallet answers with its round (CONTRACT.md §13).
 */
export async function openingChecks(
  deps: RoundDeps,
  session: SessionWithToken,
  gameType: GameType,
  start?: RoundStart,
): Promise<{ operator: OperatorWithSecret }> {
  const operator = await operatorFor(deps, session.operatorId);
  if (!operator.enabled) throw new AppError('INVALID_SESSION', 'this operator is disabled');
  // Every limit and callback of a session is in its one currency (a profile's currency is fixed once it has sessions).
  if (session.currency !== operator.currency)
    throw new AppError('CURRENCY_MISMATCH', `this session is in ${session.currency}, the profile now in ${operator.currency}`);
  if (!operator.enabledGames.includes(gameType)) throw new AppError('GAME_DISABLED', `${gameType} is disabled for this operator`);
  checkSessionGame(session, gameType);
  if (deps.wallet.circuitOpen(operator.operatorId)) throw new AppError('CASINO_NETWORK_ERROR', 'the casino is unreachable right now; try again shortly');
  await checkRoundStart(deps.kv, operator, session, start); // responsible gaming (issue 27): AUTOBET_DISABLED, ROUND_TOO_FAST
  return { operator };
}

/** The round of an active-round request: ROUND_NOT_FOUND, or ROUND_SESSION_MISMATCH for another player's session (CONTRACT.md §13). */
export async function roundOfSession(
  deps: RoundDeps,
  sessionId: string,
  roundId: string,
  gameType: GameType,
): Promise<{ session: SessionWithToken; round: Round }> {
  const session = await deps.sessions.get(deps.db, sessionId);
  const round = await getRound(deps.db, roundId);
  if (!round || round.gameType !== gameType) throw new AppError('ROUND_NOT_FOUND', `no ${gameType} round with this id`);
  if (round.operatorId !== session.operatorId || round.playerRef !== session.playerRef) {
    throw new AppError('ROUND_SESSION_MISMATCH', 'this round belongs to another player');
  }
  return { session, round };
}

/** The player's open round of a game, whichever of the player's sessions started it (CONTRACT.md §13). */
export async function openRoundOfSessionPlayer(deps: RoundDeps, sessionId: string, gameType: GameType): Promise<Round | null> {
  const session = await deps.sessions.get(deps.db, sessionId);
  return openRoundOfPlayer(deps.db, session.operatorId, session.playerRef, gameType);
}

export interface RoundActionInput<T> {
  sessionId: string;
  roundId: string;
  gameType: GameType;
  idempotencyKey: string;
  /** The request as it identifies itself for conflicts (action name and its arguments). */
  request: Record<string, unknown>;
  /**
   * Applies the action to the freshly loaded active round (`loaded`: with its callbacks, seed pair
   * and the player's latest balance). Must claim the key in the statement or transaction that
   * writes (claimKey, `advanceRound`, money-path/active-round.ts `closeAndCredit`); may answer a StoredAnswer
   * when that statement stored the answer with the key.
   */
  apply(ctx: {
    round: Round;
    loaded: RoundWithContext;
    session: SessionWithToken;
    operator: OperatorWithSecret;
    scope: IdempotencyScope;
  }): Promise<T | StoredAnswer<T>>;
  /** The answer of a key whose round moved on since its answer was stored. */
  fromRound(round: Round): Promise<T>;
}

export const ROUND_LOCK_TTL_MS = 30_000;

/**
 * Under the request's key and the round's lock: the round loaded with what its answer shows (one
 * statement), checked (ROUND_NOT_FOUND, ROUND_SESSION_MISMATCH, ROUND_NOT_ACTIVE), then the
 * game's step. A refusal before the key was claimed first looks for the key (idempotency.ts).
 */
export async function runRoundAction<T>(deps: RoundDeps, input: RoundActionInput<T>): Promise<T> {
  annotateRound(input.roundId);
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const scope = scopeOf(session, input.idempotencyKey, { op: `${input.gameType}:action`, roundId: input.roundId, ...input.request });
  return runIdempotent(
    deps.db,
    {
      scope,
      waitMs: deps.config.idempotencyWaitMs,
      fromRound: input.fromRound,
      execute: async () => {
        try {
          return await withLock(
            deps.kv,
            `round:${input.roundId}`,
            { ttlMs: ROUND_LOCK_TTL_MS, waitMs: deps.config.idempotencyWaitMs, onWait: deps.metrics?.lockWait },
            async () => {
              const loaded = await getRoundWithContext(deps.db, input.roundId);
              const round = loaded?.round;
              if (!loaded || !round || round.gameType !== input.gameType) throw new AppError('ROUND_NOT_FOUND', `no ${input.gameType} round with this id`);
              if (round.operatorId !== session.operatorId || round.playerRef !== session.playerRef) {
                throw new AppError('ROUND_SESSION_MISMATCH', 'this round belongs to another player');
              }
              if (round.status !== 'active')
                throw new AppError('ROUND_NOT_ACTIVE', `the round is ${publicStatusOf(round)}`).withRound(round.roundId, publicStatusOf(round));
              const operator = await operatorFor(deps, round.operatorId);
              return input.apply({ round, loaded, session, operator, scope });
            },
          );
        } catch (err) {
          if (err instanceof LockBusyError) throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'another action on this round is still running; retry shortly');
          if (err instanceof RoundBusyError) {
            const now = await getRound(deps.db, input.roundId);
            throw new AppError('ROUND_NOT_ACTIVE', 'the round changed while this action ran; reload it').withRound(
              input.roundId,
              now ? publicStatusOf(now) : 'active',
            );
          }
          throw err;
        }
      },
    },
    deps.metrics,
  );
}

/**
 * A step that moves no money (a Mines reveal, a Blackjack hit or stand) in one statement: the
 * round's new state at the version the caller read, and the request's key stored with `answer`
 * (built from the round as it will be). Throws RoundBusyError when the round moved on, KeyTaken
 * when another request holds the key.
 */
export async function advanceRound<T>(
  deps: RoundDeps,
  round: Round,
  scope: IdempotencyScope,
  change: { state: unknown; totalStaked?: bigint },
  answer: T,
): Promise<StoredAnswer<T>> {
  let moved: Round | null;
  try {
    moved = await advanceActiveRound(deps.db, {
      roundId: round.roundId,
      version: round.version,
      ...change,
      answer: { claim: scope, body: stringifyJson(answer), roundStatus: String((answer as { roundStatus?: unknown }).roundStatus ?? round.status) },
    });
  } catch (err) {
    throw keyTakenOr(err);
  }
  if (!moved) throw new RoundBusyError(`round ${round.roundId} changed during the action`);
  scope.claimed = true;
  return new StoredAnswer(answer);
}

/**
 * Opens a Mines or Blackjack round, paid or free (`funding`): in one statement the round with its debit recorded (none for a free bet), its
 * state dealt from the committed seed (the outcome is fixed before the player acts, CONTRACT.md
 * §9) and the request's idempotency key. A second open round of the player is
 * ACTIVE_ROUND_EXISTS naming that round, before any wallet call (unless the same request won the
 * race on another pod: runIdempotent then finds its key and replays its answer).
 */
export async function openActiveRound(
  deps: RoundDeps,
  scope: IdempotencyScope,
  input: OpenRoundInput & { gameType: 'mines' | 'blackjack' },
  deal: { floats: number; state(floats: number[]): unknown },
  funding: Funding,
): Promise<OpenedRound> {
  try {
    return await openRound(deps, input, {
      claim: scope,
      funding,
      deal: (pair) => deal.state(floats(pair.serverSeed, pair.clientSeed, pair.nonce, deal.floats)),
    });
  } catch (err) {
    if (isUniqueViolation(err, 'rounds_one_open_per_player')) {
      const refusal = new AppError('ACTIVE_ROUND_EXISTS', `finish the active ${input.gameType === 'mines' ? 'Mines' : 'Blackjack'} round first`);
      const open = await openRoundOfPlayer(deps.db, input.session.operatorId, input.session.playerRef, input.gameType);
      throw open ? refusal.withRound(open.roundId, publicStatusOf(open)) : refusal;
    }
    throw err;
  }
}

/**
 * How a game closes an abandoned round (operators/operator-schema.ts policy): answers whether
 * the round's credit was confirmed (`succeeded`) or is still `pending`, or null when the policy
 * keeps the round open (or a player action got there first).
 */
export type AbandonedRoundHandler = (deps: RoundDeps, round: Round, policy: AbandonedRoundPolicy) => Promise<'succeeded' | 'pending' | null>;
