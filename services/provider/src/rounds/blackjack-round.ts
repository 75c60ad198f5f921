/**
 * Blackjack active rounds (SPEC.md endpoint rules 6 and 7; CONTRACT.md §10–§13). The 52 cards are
 * fixed by the committed seed when the round opens and stay in `rounds.state` until the round is
 * final; the player sees the up card only. Money moves exactly as the spec says, through the
 * money path:
 *
 *   start                       one debit; a round the deal decides (naturals, the dealer's peek)
 *                               closes at once with its one credit, any other becomes `active`
 *   hit, stand, no insurance    the new state, no wallet movement
 *   insurance, double, split    one extra debit each (money-path/extra-debits.ts `takeExtraDebit`): confirmed →
 *                               the action applies; refused or rolled back → the action is refused
 *                               with the casino's error and withdrawn from the round
 *   final                       one credit of the total payout of every hand and the insurance
 *                               (0 for a loss) → `settled` (blackjack-recovery.ts `closeBlackjack`)
 *
 * Every step runs under the request's idempotency key; actions run through runRoundAction (lock
 * `round:<id>` + the round's version), so a duplicate or a concurrent request on another pod
 * never acts twice. A round a stopped worker left mid extra debit is resolved first
 * (blackjack-recovery.ts).
 */
import {
  applyBlackjackAction,
  BLACKJACK_FLOATS,
  BLACKJACK_MAX_MULTIPLIER4,
  isFinal,
  requiredDebit,
  startBlackjack,
  totalStaked,
  withdrawExtraDebit,
  type BlackjackAction,
  type BlackjackState,
  type ExtraDebit,
} from '@gp/game-core/games';
import { checkMaxPayout, checkStake, parseAmount } from '@gp/game-core/money';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import { latestBalance } from './round-store/reads.js';
import type { SessionWithToken } from '../sessions/sessions.js';
import { claimKey, runIdempotent, scopeOf, StoredAnswer, type IdempotencyScope } from './idempotency.js';
import { applyPaidAction, takeExtraDebit } from './money-path/extra-debits.js';
import { closeAndCredit, debitAndActivate } from './money-path/active-round.js';
import { PAID, debitOpenedRound } from './money-path/opening.js';
import { RoundBusyError } from './money-path/callbacks.js';
import { blackjackPlayerView, blackjackStateOf } from './player-view.js';
import { blackjackClose, closeBlackjack, takeOverStaleRound } from './blackjack-recovery.js';
import { advanceRound, openActiveRound, openingChecks, openRoundOfSessionPlayer, roundOfSession, runRoundAction, type RoundDeps } from './round-actions.js';
import { getRound, getRoundWithContext, type RoundWithContext } from './round-store/reads.js';
import type { Callback, Round } from './round-store/rows.js';
import { isFailed } from './round-status.js';
import { betView, betViewOf, failedRoundError, type PairView } from './round-view.js';

export type BlackjackAnswer = Awaited<ReturnType<typeof betView>>;

/**
 * The answer to a POST of the round as it stands (also for a key whose round moved on since its
 * answer): with the balance the casino just reported, else the player's latest (CONTRACT.md §12:
 * also when no money moved).
 */
async function blackjackAnswer(deps: RoundDeps, round: Round, balance?: bigint | null): Promise<BlackjackAnswer> {
  if (isFailed(round)) throw failedRoundError(round);
  const latest = balance ?? (await latestBalance(deps.db, round.operatorId, round.playerRef, round.currency));
  return betView(deps.db, round, { result: blackjackPlayerView(round), balance: latest });
}

/** The answer of a round whose callbacks and seed pair the caller holds (no database read). */
function blackjackAnswerOf(round: Round, callbacks: Callback[], pair: PairView, balance: bigint | null): BlackjackAnswer {
  return betViewOf(round, callbacks, pair, { result: blackjackPlayerView(round), balance });
}

/* ------------------------------------------------------------------------------------ start */

export interface StartBlackjackInput {
  sessionId: string;
  amount: string;
  idempotencyKey: string;
  clientSeed?: string | undefined;
  /** A round of an autobet run (issue 27). */
  autobet?: boolean | undefined;
}

export async function startBlackjackRound(deps: RoundDeps, input: StartBlackjackInput): Promise<BlackjackAnswer> {
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const amount = parseAmount(input.amount, session.currency);
  const scope = scopeOf(session, input.idempotencyKey, { op: 'blackjack:start', amount, clientSeed: input.clientSeed ?? null });
  return runIdempotent(
    deps.db,
    {
      scope,
      waitMs: deps.config.idempotencyWaitMs,
      fromRound: (round) => blackjackAnswer(deps, round),
      async execute() {
        const { operator } = await openingChecks(deps, session, 'blackjack', { autobet: input.autobet });
        checkStake(amount, operator);
        checkMaxPayout(amount, BLACKJACK_MAX_MULTIPLIER4, operator);
        // One transaction: the nonce, the round with its debit recorded, the 52 cards of that nonce under the committed seed, the key.
        const opened = await openActiveRound(
          deps,
          scope,
          { session, operator, amount, clientSeed: input.clientSeed, gameType: 'blackjack', params: {} },
          { floats: BLACKJACK_FLOATS, state: (f) => startBlackjack(f, amount) },
          PAID,
        );
        const { round } = opened;
        const state = blackjackStateOf(round);
        try {
          if (isFinal(state)) {
            const balance = await debitOpenedRound(deps, operator, opened);
            const closed = await closeBlackjack(deps, operator, round, state, { from: ['debit_requested'], launchToken: session.launchToken });
            return await blackjackAnswer(deps, closed.round, closed.balance ?? balance);
          }
          // One statement: the debit's answer, the round active, the request's answer with its key.
          const pair = { serverSeedHash: opened.serverSeedHash, serverSeed: opened.serverSeed, revealed: false };
          const started = await debitAndActivate(deps, operator, opened, scope, async (active, debit, balance) =>
            blackjackAnswerOf(active, [debit], pair, balance ?? (await latestBalance(deps.db, active.operatorId, active.playerRef, active.currency))),
          );
          if (started) return new StoredAnswer(started.answer);
        } catch (err) {
          if (!(err instanceof RoundBusyError)) throw err;
        }
        // The retry job took the round over meanwhile (its lease ran out): answer what it became.
        return blackjackAnswer(deps, (await getRound(deps.db, round.roundId)) ?? round);
      },
    },
    deps.metrics,
  );
}

/* ---------------------------------------------------------------------------------- actions */

export interface BlackjackActionInput {
  sessionId: string;
  roundId: string;
  idempotencyKey: string;
  /** hit, stand, double, split; insurance / decline_insurance for POST .../insurance */
  action: BlackjackAction;
}

interface ActionContext {
  round: Round;
  /** the round with its callbacks, seed pair and the player's latest balance, as read for this action */
  loaded: RoundWithContext;
  session: SessionWithToken;
  operator: OperatorWithSecret;
  scope: IdempotencyScope;
}

export async function playBlackjackAction(deps: RoundDeps, input: BlackjackActionInput): Promise<BlackjackAnswer> {
  return runRoundAction(deps, {
    sessionId: input.sessionId,
    roundId: input.roundId,
    idempotencyKey: input.idempotencyKey,
    gameType: 'blackjack',
    request: { action: input.action },
    fromRound: (round) => blackjackAnswer(deps, round),
    async apply(ctx) {
      const round = await takeOverStaleRound(deps, ctx.operator, ctx.round);
      // a round taken over had its extra debits resolved: read what its answer shows again
      const loaded = round === ctx.round ? ctx.loaded : await getRoundWithContext(deps.db, round.roundId);
      if (!loaded) throw new RoundBusyError(`round ${round.roundId} vanished`);
      const state = blackjackStateOf(round);
      const extra = requiredDebit(state, input.action); // ACTION_NOT_AVAILABLE when illegal now (or withdrawn)
      const c = { ...ctx, round, loaded: { ...loaded, round } };
      return extra ? paidAction(deps, c, state, input.action, extra) : freeAction(deps, c, state, input.action);
    },
  });
}

/**
 * hit, stand, declined insurance, each in one statement: the new state with the key and its
 * answer; or the round closed with its credit recorded and the key claimed, then the credit
 * answered with the final status and the request's answer.
 */
async function freeAction(
  deps: RoundDeps,
  c: ActionContext,
  state: BlackjackState,
  action: BlackjackAction,
): Promise<BlackjackAnswer | StoredAnswer<BlackjackAnswer>> {
  const { round, scope, loaded } = c;
  const next = applyBlackjackAction(state, action).state;
  if (isFinal(next)) {
    const closed = await closeAndCredit(
      deps,
      c.operator,
      round,
      blackjackClose(round, next, { from: ['active'], launchToken: c.session.launchToken }),
      scope,
      (final, credit, balance) => blackjackAnswerOf(final, [...loaded.callbacks, credit], loaded.pair, balance ?? loaded.balance),
    );
    if (closed.answer !== null) return new StoredAnswer(closed.answer);
    return blackjackAnswer(deps, closed.round);
  }
  return advanceRound(deps, round, scope, { state: next }, blackjackAnswerOf({ ...round, state: next }, loaded.callbacks, loaded.pair, loaded.balance));
}

/**
 * insurance, double, split: the extra debit through the money path, and only once the casino
 * confirmed it the action. Refused or rolled back: the action is refused with the error and
 * withdrawn from the round (its wallet key is spent, so it could never succeed again;
 * `result.withdrawnActions` shows it); nothing else changes.
 */
async function paidAction(deps: RoundDeps, c: ActionContext, state: BlackjackState, action: BlackjackAction, extra: ExtraDebit): Promise<BlackjackAnswer> {
  const { session, operator, scope } = c;
  const { round, balance } = await takeExtraDebit(
    deps,
    operator,
    c.round,
    { kind: extra.kind, amount: extra.amount, launchToken: session.launchToken, ...(extra.hand === undefined ? {} : { hand: extra.hand }) },
    { claim: (tx) => claimKey(tx, scope, c.round.roundId), withdrawnState: withdrawExtraDebit(state, extra) },
  );
  const next = applyBlackjackAction(state, action).state;
  if (isFinal(next)) {
    const closed = await closeBlackjack(deps, operator, round, next, { from: ['active'], launchToken: session.launchToken });
    return blackjackAnswer(deps, closed.round, closed.balance ?? balance);
  }
  const updated = await applyPaidAction(deps, round, { state: next, totalStaked: totalStaked(next) });
  // null: the lease ran out and the retry job took the round over; it rolls this debit back.
  if (!updated) throw new RoundBusyError(`round ${round.roundId} was taken over during ${action}`);
  return blackjackAnswer(deps, updated, balance);
}

/* ---------------------------------------------------------------------------------- lookups */

export async function getBlackjackRound(deps: RoundDeps, sessionId: string, roundId: string): Promise<BlackjackAnswer> {
  const { round } = await roundOfSession(deps, sessionId, roundId, 'blackjack');
  return betView(deps.db, round, { result: blackjackPlayerView(round), audit: true });
}

/** The player's open Blackjack round, whichever of the player's sessions started it (CONTRACT.md §13). */
export async function activeBlackjackRound(deps: RoundDeps, sessionId: string): Promise<{ round: BlackjackAnswer | null }> {
  const round = await openRoundOfSessionPlayer(deps, sessionId, 'blackjack');
  return { round: round ? await betView(deps.db, round, { result: blackjackPlayerView(round) }) : null };
}
