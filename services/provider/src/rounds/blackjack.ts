/**
 * Blackjack active rounds (SPEC.md endpoint rules 6 and 7; CONTRACT.md §10–§13). The 52 cards are
 * fixed by the committed seed when the round opens and stay in `rounds.state` until the round is
 * final; the player sees the up card only. Money moves exactly as the spec says:
 *
 *   start                       one debit; a round the deal decides (naturals, the dealer's peek)
 *                               closes at once with its one credit, any other becomes `active`
 *   hit, stand, no insurance    the new state, no wallet movement
 *   insurance, double, split    one extra debit each (`<roundId>:insurance`, `<roundId>:double:<hand>`,
 *                               `<roundId>:split`): confirmed → the action applies; refused → the action
 *                               is refused with the casino's error; ambiguous → that debit is rolled
 *                               back (`<key>:rollback`) and the action refused. A refused action leaves
 *                               the round as it was, and its key replays the error.
 *   final                       one credit of the total payout of every hand and the insurance
 *                               (0 for a loss) → `settled`
 *
 * Every step runs on the money path (money-path.ts) under the request's idempotency key; actions
 * run through runRoundAction (lock `round:<id>` + the round's version), so a duplicate or a
 * concurrent request on another pod never acts twice.
 *
 * Crash safety of extra debits: an extra debit is recorded, with the action's idempotency key and
 * a lease on the round, before it is sent, and the lease ends in the transaction that applies the
 * action (or once the debit is refused or its rollback recorded). A worker that stops in between
 * leaves the lease to run out; then the retry job (recoverBlackjackExtraDebits) or the next action
 * on the round resolves it (resolveExtraDebits): an extra debit counts only once the state shows
 * its action, any other is rolled back.
 */
import { BLACKJACK_FLOATS } from '@gp/game-core/games';
import { applyBlackjackAction, BLACKJACK_MAX_MULTIPLIER4, isFinal, requiredDebit, settlement, startBlackjack, totalStaked, type BlackjackAction, type BlackjackState, type ExtraDebit, withdrawExtraDebit } from '@gp/game-core/games';
import { blackjackResultView } from '@gp/game-core/games';
import { minorToNumber } from '@gp/game-core/games';
import { blackjackStateSchema } from '@gp/game-core/games';
import { checkMaxPayout, checkStake, CURRENCY_DECIMALS, parseAmount, type CurrencyCode, amountJson } from '@gp/game-core/money';
import { AppError, ERROR_STATUS, errorBody, type ErrorCode } from '../errors.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import type { SessionWithToken } from '../sessions/sessions.js';
import { type Db, type Tx } from '../store/db.js';
import { isCleanRefusal, outcomeError } from '../wallet/wallet-client.js';
import type { AbandonedRoundHandler } from './abandoned-rounds.js';
import { openingChecks, roundAnswer } from './bets.js';
import { claimKey, completeKey, requestHash, runIdempotent, type IdempotencyScope } from './idempotency.js';
import { balanceFrom, closeRound, debitOpenedRound, extraDebitKey, leaseMs, operatorFor, recordCallback, rollbackKey, RoundBusyError, sendCallback, type MoneyDeps, type OpenedRound } from './money-path.js';
import type { RetryFilter, RetryItem } from './retries.js';
import { roundOfSession, runRoundAction, type RoundDeps, openRoundOfPlayer, openActiveRound } from './round-actions.js';
import { callbacksOfRound, getCallback, getRound, roundFromRow, updateRound, type Callback, type RoundStatus, type Round } from './round-store.js';
import { betView } from './round-view.js';
import { latestBalance } from '../sessions/player-balances.js';

export type BlackjackAnswer = Awaited<ReturnType<typeof betView>>;

/** Open = the debit is on its way or the round is playable: the partial unique index's statuses. */
const OPEN_STATUSES = ['debit_requested', 'active'] as const;
const isOpen = (round: Round) => (OPEN_STATUSES as readonly string[]).includes(round.status);
const EXTRA_DEBIT_KINDS = ['insurance', 'double', 'split'] as const;

/** The round's state as stored (jsonb). */
function stateOf(round: Round): BlackjackState {
  const raw: unknown = typeof round.state === 'string' ? JSON.parse(round.state) : round.state;
  return blackjackStateSchema.parse(raw);
}

function resultView(state: BlackjackState, currency: CurrencyCode) {
  const decimals = CURRENCY_DECIMALS[currency];
  return blackjackResultView(state, (minor) => minorToNumber(minor, decimals));
}

/**
 * The `result` the player may see: while the round is open its hands, the dealer's up card and
 * the actions available (no hole card, no undealt cards); once it is closing or final the stored
 * result, every card revealed. A deal that decided the round while its debit is still on its way
 * shows no outcome yet.
 */
export function blackjackPlayerView(round: Round): unknown {
  if (!isOpen(round)) return round.result ?? null;
  if (round.state === null || round.state === undefined) return null;
  const state = stateOf(round);
  return resultView(isFinal(state) ? { ...state, phase: 'player', activeHand: null } : state, round.currency);
}

/** The answer of a round as it stands (also for a key whose round moved on since its answer). */
async function blackjackAnswer(deps: MoneyDeps, round: Round, balance?: bigint | null): Promise<BlackjackAnswer> {
  if (round.status === 'error' || round.status === 'cancelled' || round.status === 'rollback_pending') return roundAnswer(deps, round);
  // With the balance the casino just reported, else the player's latest (CONTRACT.md §12: also when no money moved).
  const latest = balance ?? (await latestBalance(deps.db, round.operatorId, round.playerRef, round.currency));
  return betView(deps.db, round, { result: blackjackPlayerView(round), balance: latest });
}

/* ------------------------------------------------------------------------------------ start */

export interface StartBlackjackInput {
  sessionId: string;
  amount: string;
  idempotencyKey: string;
  clientSeed?: string | undefined;
}

export async function startBlackjackRound(deps: RoundDeps, input: StartBlackjackInput): Promise<BlackjackAnswer> {
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const amount = parseAmount(input.amount, session.currency);

  const scope: IdempotencyScope = {
    operatorId: session.operatorId,
    sessionId: session.sessionId,
    key: input.idempotencyKey,
    requestHash: requestHash({ op: 'blackjack:start', amount, clientSeed: input.clientSeed ?? null }),
  };
  return runIdempotent(deps.db, {
    scope,
    waitMs: deps.config.idempotencyWaitMs,
    fromRound: (round) => blackjackAnswer(deps, round),
    async execute() {
      const { operator } = await openingChecks(deps, session, 'blackjack');
      checkStake(amount, operator);
      checkMaxPayout(amount, BLACKJACK_MAX_MULTIPLIER4, operator);
      const opened = await openBlackjackRound(deps, scope, { session, operator, amount, clientSeed: input.clientSeed });
      const { round } = opened;
      const balance = await debitOpenedRound(deps, operator, opened);
      const state = stateOf(round);
      try {
        if (isFinal(state)) {
          const closed = await closeBlackjack(deps, operator, round, state, { from: ['debit_requested'], launchToken: session.launchToken });
          return await blackjackAnswer(deps, closed.round, closed.balance ?? balance);
        }
        const active = await updateRound(deps.db, round.roundId, 'debit_requested', { status: 'active', leaseUntil: null });
        if (active) return await blackjackAnswer(deps, active, balance);
      } catch (err) {
        if (!(err instanceof RoundBusyError)) throw err;
      }
      // The retry job took the round over meanwhile (its lease ran out): answer what it became.
      return blackjackAnswer(deps, (await getRound(deps.db, round.roundId)) ?? round);
    },
  });
}

/**
 * One transaction: the nonce, the round with its debit recorded, the 52 cards from the floats of
 * that nonce under the committed seed, and the request's idempotency key. A second open round of
 * the player hits the partial unique index: ACTIVE_ROUND_EXISTS, before any wallet call.
 */
function openBlackjackRound(deps: RoundDeps, scope: IdempotencyScope, input: { session: SessionWithToken; operator: OperatorWithSecret; amount: bigint; clientSeed: string | undefined }): Promise<OpenedRound> {
  return openActiveRound(deps, scope, { ...input, gameType: 'blackjack', params: {} }, { floats: BLACKJACK_FLOATS, state: (f) => startBlackjack(f, input.amount) });
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
      const state = stateOf(round);
      const extra = requiredDebit(state, input.action); // ACTION_NOT_AVAILABLE when illegal now
      const c = { ...ctx, round };
      return extra ? paidAction(deps, c, state, input.action, extra) : freeAction(deps, c, state, input.action);
    },
  });
}

/** hit, stand, declined insurance: the new state (or the close) and the key in one transaction. */
async function freeAction(deps: RoundDeps, c: ActionContext, state: BlackjackState, action: BlackjackAction): Promise<BlackjackAnswer> {
  const { round, scope } = c;
  const next = applyBlackjackAction(state, action).state;
  if (isFinal(next)) {
    const closed = await closeBlackjack(deps, c.operator, round, next, {
      from: ['active'],
      launchToken: c.session.launchToken,
      inTx: (tx) => claimKey(tx, scope, round.roundId),
    });
    return blackjackAnswer(deps, closed.round, closed.balance);
  }
  const updated = await deps.db.transaction(async (tx) => {
    const moved = await updateRound(tx, round.roundId, 'active', { state: next, bumpVersion: true }, round.version);
    if (!moved) throw new RoundBusyError(`round ${round.roundId} changed during ${action}`);
    await claimKey(tx, scope, round.roundId);
    return moved;
  });
  return blackjackAnswer(deps, updated);
}

/**
 * insurance, double, split: record the extra debit with the key (the round leased), send it, and
 * only when the casino confirmed it apply the action. Refused or rolled back: the action is
 * refused with the error and withdrawn from the round (its wallet key is spent, so it could never
 * succeed again; `result.withdrawnActions` shows it); nothing else changes.
 */
async function paidAction(deps: RoundDeps, c: ActionContext, state: BlackjackState, action: BlackjackAction, extra: ExtraDebit): Promise<BlackjackAnswer> {
  const { session, operator, scope } = c;
  const roundId = c.round.roundId;
  // An extra debit key is used once: a refused or rolled-back one answers its error again.
  const earlier = await getCallback(deps.db, extraDebitKey(roundId, extra.kind, extra.hand));
  if (earlier) throw storedError(earlier).withRound(roundId, 'active');

  const { round, debit } = await deps.db.transaction(async (tx) => {
    const leased = await updateRound(tx, roundId, 'active', { leaseUntil: leaseEnd(deps), bumpVersion: true }, c.round.version);
    if (!leased) throw new RoundBusyError(`round ${roundId} changed during ${action}`);
    const recorded = await recordExtraDebit(tx, deps, operator, leased, session.launchToken, extra);
    await claimKey(tx, scope, roundId);
    return { round: leased, debit: recorded };
  });

  const { outcome } = await sendCallback(deps, operator, debit);
  if (outcome.kind !== 'confirmed') {
    if (!isCleanRefusal(outcome)) await rollbackExtraDebit(deps, operator, round, debit, `${extra.kind} debit not confirmed`);
    await updateRound(deps.db, roundId, 'active', { state: withdrawExtraDebit(state, extra), leaseUntil: null, bumpVersion: true }, round.version);
    throw outcomeError(outcome).withRound(roundId, 'active');
  }

  const next = applyBlackjackAction(state, action).state;
  const balance = balanceFrom(outcome, round);
  if (isFinal(next)) {
    const closed = await closeBlackjack(deps, operator, round, next, { from: ['active'], launchToken: session.launchToken });
    return blackjackAnswer(deps, closed.round, closed.balance ?? balance);
  }
  const updated = await updateRound(deps.db, roundId, 'active', { state: next, totalStaked: totalStaked(next), leaseUntil: null, bumpVersion: true }, round.version);
  // null: the lease ran out and the retry job took the round over; it rolls this debit back.
  if (!updated) throw new RoundBusyError(`round ${roundId} was taken over during ${action}`);
  return blackjackAnswer(deps, updated, balance);
}

/**
 * Fixes the final state and records the round's one credit: the total payout of every hand and
 * the insurance (0 for a loss). bet.multiplier = payout ÷ totalStaked, floored (CONTRACT.md §13).
 */
async function closeBlackjack(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  state: BlackjackState,
  opts: { from: RoundStatus[]; launchToken: string; inTx?: (tx: Tx) => Promise<void> },
) {
  const s = settlement(state);
  return closeRound(deps, operator, round, {
    from: opts.from,
    version: round.version,
    result: resultView(state, round.currency),
    state,
    multiplier4: s.multiplier4,
    payout: s.totalPayout,
    closeStatus: 'settled',
    totalStaked: s.totalStaked,
    launchToken: opts.launchToken,
    ...(opts.inTx ? { inTx: opts.inTx } : {}),
  });
}

/* ----------------------------------------------------------------------------- extra debits */

const leaseEnd = (deps: MoneyDeps) => new Date(Date.now() + leaseMs(deps.config));
const isExtraDebit = (c: Callback) => c.operation === 'debit' && (EXTRA_DEBIT_KINDS as readonly string[]).includes(c.purpose);

/** Records an extra debit (CONTRACT.md §11 key, purpose = its kind) before it is sent. */
export async function recordExtraDebit(db: Db | Tx, deps: MoneyDeps, operator: OperatorWithSecret, round: Round, launchToken: string, extra: ExtraDebit): Promise<Callback> {
  return recordCallback(db, deps, operator, round, {
    operation: 'debit',
    purpose: extra.kind,
    key: extraDebitKey(round.roundId, extra.kind, extra.hand),
    amount: extra.amount,
    body: {
      operatorId: round.operatorId,
      playerRef: round.playerRef,
      launchToken,
      gameType: round.gameType,
      roundId: round.roundId,
      amount: amountJson(extra.amount, round.currency),
      currency: round.currency,
    },
  });
}

/** Records the rollback of an extra debit (key `<debit key>:rollback`) and sends it; answers its callback status. */
async function rollbackExtraDebit(deps: MoneyDeps, operator: OperatorWithSecret, round: Round, debit: Callback, reason: string): Promise<Callback['callbackStatus']> {
  const rollback = await recordCallback(deps.db, deps, operator, round, {
    operation: 'rollback',
    purpose: debit.purpose,
    key: rollbackKey(debit.idempotencyKey),
    debitKey: debit.idempotencyKey,
    amount: debit.amount,
    body: {
      operatorId: round.operatorId,
      playerRef: round.playerRef,
      gameType: round.gameType,
      roundId: round.roundId,
      debitIdempotencyKey: debit.idempotencyKey,
      amount: amountJson(debit.amount, round.currency),
      currency: round.currency,
      reason,
    },
  });
  if (rollback.callbackStatus !== 'pending') return rollback.callbackStatus;
  return (await sendCallback(deps, operator, rollback)).status;
}

/** The error a failed extra debit answered (replayed for a later attempt of the same debit). */
function storedError(debit: Callback): AppError {
  if (debit.callbackStatus !== 'failed') return new AppError('ACTION_NOT_AVAILABLE', `the ${debit.purpose} was already taken`);
  const code = debit.errorCode !== null && debit.errorCode in ERROR_STATUS ? (debit.errorCode as ErrorCode) : 'CASINO_HTTP_ERROR';
  return new AppError(code, debit.errorMessage ?? 'the casino did not confirm the debit');
}

/**
 * A 4xx answer other than 409 and 429 at the first attempt: the casino refused, nothing was
 * debited, nothing to undo (CONTRACT.md §11). A refusal after an unanswered first attempt is
 * rolled back all the same: that first attempt may still land.
 */
function wasRefused(debit: Callback): boolean {
  const s = debit.statusCode;
  return s !== null && s >= 300 && s < 500 && s !== 409 && s !== 429 && debit.attemptCount === 1;
}

/** Does the state show the action the extra debit paid for? */
function shownInState(state: BlackjackState, debit: Callback): boolean {
  if (debit.purpose === 'insurance') return state.insurance.taken === true;
  if (debit.purpose === 'split') return state.split;
  const hand = Number(debit.idempotencyKey.slice(debit.idempotencyKey.lastIndexOf(':') + 1));
  return state.hands[hand]?.doubled === true;
}

/**
 * Resolves the extra debits a stopped worker left behind on a round the caller has taken over
 * (its lease and version): one never answered, or ambiguous without its rollback, or confirmed
 * but not shown in the state, is rolled back, and the action's key then answers the error.
 */
export async function resolveExtraDebits(deps: MoneyDeps, operator: OperatorWithSecret, round: Round): Promise<RetryItem[]> {
  const callbacks = await callbacksOfRound(deps.db, round.roundId);
  const state = stateOf(round);
  let withdrawn = state;
  const items: RetryItem[] = [];
  for (const recorded of callbacks.filter(isExtraDebit)) {
    if (recorded.callbackStatus === 'succeeded' && shownInState(state, recorded)) continue;
    // Its action did not happen and its key is spent: withdrawn from the round.
    withdrawn = withdrawExtraDebit(withdrawn, extraDebitOf(recorded));
    if (callbacks.some((c) => c.operation === 'rollback' && c.debitIdempotencyKey === recorded.idempotencyKey)) continue; // being retried
    const debit = recorded.callbackStatus === 'pending' ? await markUnanswered(deps, recorded) : recorded;
    const undo = debit.callbackStatus === 'succeeded' || !wasRefused(debit);
    if (!undo) continue;
    const status = await rollbackExtraDebit(deps, operator, round, debit, `${debit.purpose} interrupted`);
    const error =
      debit.callbackStatus === 'succeeded'
        ? new AppError('INTERNAL_ERROR', `the ${debit.purpose} was interrupted after its debit; the debit is rolled back`)
        : storedError(debit);
    await answerInterruptedAction(deps, debit, error.withRound(round.roundId, 'active'));
    items.push({ roundId: round.roundId, operation: 'rollback', outcome: status === 'succeeded' ? 'succeeded' : 'pending' });
  }
  // The caller holds the round (lease and version): the state changes without a new version.
  if (withdrawn !== state) await updateRound(deps.db, round.roundId, 'active', { state: withdrawn }, round.version);
  return items;
}

/** The extra debit a recorded callback paid for (its purpose, and the hand of a double from its key). */
function extraDebitOf(debit: Callback): Pick<ExtraDebit, 'kind' | 'hand'> {
  const kind = debit.purpose as ExtraDebit['kind'];
  return kind === 'double' ? { kind, hand: Number(debit.idempotencyKey.slice(debit.idempotencyKey.lastIndexOf(':') + 1)) } : { kind };
}

/** A debit sent by a worker that stopped before storing the answer: unknown, so it will be rolled back. */
async function markUnanswered(deps: MoneyDeps, debit: Callback): Promise<Callback> {
  await deps
    .db('wallet_callbacks')
    .where({ id: debit.id, callback_status: 'pending' })
    .update({ callback_status: 'failed', error_code: 'CASINO_TIMEOUT', error_message: 'no answer recorded: the worker stopped', updated_at: deps.db.fn.now() });
  return (await getCallback(deps.db, debit.idempotencyKey)) ?? debit;
}

/** The key of the interrupted action (claimed in the transaction that recorded the debit) answers the error from now on. */
async function answerInterruptedAction(deps: MoneyDeps, debit: Callback, error: AppError): Promise<void> {
  const records: { operator_id: string; session_id: string; idempotency_key: string; request_hash: string }[] = await deps
    .db('idempotency_records')
    .where({ round_id: debit.roundId, state: 'in_progress' })
    .andWhere('created_at', '=', deps.db('wallet_callbacks').select('created_at').where({ id: debit.id }))
    .select('operator_id', 'session_id', 'idempotency_key', 'request_hash');
  for (const r of records) {
    const scope = { operatorId: r.operator_id, sessionId: r.session_id, key: r.idempotency_key, requestHash: r.request_hash };
    await completeKey(deps.db, scope, { status: error.statusCode, body: errorBody(error), roundStatus: 'active' });
  }
}

/** Sets the lease of an active round at `version` (the claim bumps the version); answers the round, or null. */
async function leaseRound(db: Db, round: Round, lease: Date | null, bumpVersion: boolean): Promise<Round | null> {
  const rows = await db('rounds')
    .where({ round_id: round.roundId, status: 'active', version: round.version })
    .update({ lease_until: lease, ...(bumpVersion ? { version: db.raw('version + 1') } : {}) })
    .returning('*');
  return rows[0] ? roundFromRow(rows[0]) : null;
}

/**
 * Before an action: a lease still running means another request (or the retry job) is working on
 * the round; a lease that ran out means a worker stopped mid extra debit: take the round over and
 * resolve its extra debits first.
 */
async function takeOverStaleRound(deps: RoundDeps, operator: OperatorWithSecret, round: Round): Promise<Round> {
  if (round.leaseUntil === null) return round;
  if (Date.parse(round.leaseUntil) > Date.now()) {
    throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'another action on this round is still running; retry shortly');
  }
  const claimed = await leaseRound(deps.db, round, leaseEnd(deps), true);
  if (!claimed) throw new RoundBusyError(`round ${round.roundId} was taken over`);
  await resolveExtraDebits(deps, operator, claimed);
  const released = await leaseRound(deps.db, claimed, null, false);
  if (!released) throw new RoundBusyError(`round ${round.roundId} was taken over`);
  return released;
}

/**
 * The retry job's part (retries.ts): rollbacks of extra debits the casino has not confirmed yet
 * are sent again with their keys; active rounds whose lease ran out are taken over and their
 * extra debits resolved.
 */
export async function recoverBlackjackExtraDebits(deps: MoneyDeps, filter: RetryFilter): Promise<RetryItem[]> {
  const items: RetryItem[] = [];
  if (filter.limit <= 0) return items;
  const pending: { idempotency_key: string }[] = await deps
    .db('wallet_callbacks')
    .where({ operation: 'rollback', callback_status: 'pending' })
    .whereIn('purpose', EXTRA_DEBIT_KINDS)
    .modify((q) => {
      if (filter.operatorId) q.where('operator_id', filter.operatorId);
      if (filter.playerRef) q.where('player_ref', filter.playerRef);
    })
    .orderBy('id')
    .limit(filter.limit)
    .select('idempotency_key');
  for (const { idempotency_key: key } of pending) {
    const rollback = await getCallback(deps.db, key);
    if (!rollback || rollback.callbackStatus !== 'pending') continue;
    let outcome: RetryItem['outcome'] = 'pending';
    try {
      const sent = await sendCallback(deps, await operatorFor(deps, rollback.operatorId), rollback);
      if (sent.status === 'succeeded') outcome = 'succeeded';
    } catch {
      // left for the next run
    }
    items.push({ roundId: rollback.roundId, operation: 'rollback', outcome });
  }

  const limit = filter.limit - items.length;
  if (limit <= 0) return items;
  const lease = leaseEnd(deps);
  const rounds = await deps.db.transaction(async (tx) => {
    const ids = tx('rounds')
      .select('round_id')
      .where({ game_type: 'blackjack', status: 'active' })
      .whereNotNull('lease_until')
      .andWhere('lease_until', '<', tx.fn.now())
      .modify((q) => {
        if (filter.operatorId) q.where('operator_id', filter.operatorId);
        if (filter.playerRef) q.where('player_ref', filter.playerRef);
      })
      .orderBy('updated_at')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const rows = await tx('rounds').whereIn('round_id', ids).update({ lease_until: lease, version: tx.raw('version + 1') }).returning('*');
    return rows.map(roundFromRow);
  });
  for (const round of rounds) {
    try {
      items.push(...(await resolveExtraDebits(deps, await operatorFor(deps, round.operatorId), round)));
    } catch {
      items.push({ roundId: round.roundId, operation: 'rollback', outcome: 'pending' });
    } finally {
      await leaseRound(deps.db, round, null, false);
    }
  }
  return items;
}

/* ---------------------------------------------------------------------------------- lookups */

export async function getBlackjackRound(deps: RoundDeps, sessionId: string, roundId: string): Promise<BlackjackAnswer> {
  const { round } = await roundOfSession(deps, sessionId, roundId, 'blackjack');
  return betView(deps.db, round, { result: blackjackPlayerView(round), audit: true });
}

/** The player's open Blackjack round, whichever of the player's sessions started it (CONTRACT.md §13). */
export async function activeBlackjackRound(deps: RoundDeps, sessionId: string): Promise<{ round: BlackjackAnswer | null }> {
  const round = await openRoundOfPlayer(deps, sessionId, 'blackjack');
  return { round: round ? await betView(deps.db, round, { result: blackjackPlayerView(round) }) : null };
}

/* ------------------------------------------------------------------------- abandoned rounds */

/**
 * Abandoned Blackjack rounds, policy `stand` (operators/operator-schema.ts): a pending insurance
 * is declined, every open hand stands, the dealer plays out, and the round closes with its one
 * credit, as the player's own stands would. A stopped worker's extra debit is resolved first. A
 * player action that got there first wins: the version check refuses the sweep.
 */
export const closeAbandonedBlackjackRound: AbandonedRoundHandler = async (deps, round, policy) => {
  if (policy.blackjack !== 'stand') return null;
  const claimed = await leaseRound(deps.db, round, leaseEnd(deps), true);
  if (!claimed) return null;
  const operator = await operatorFor(deps, round.operatorId);
  await resolveExtraDebits(deps, operator, claimed);
  let state = stateOf(claimed);
  while (!isFinal(state)) state = applyBlackjackAction(state, state.phase === 'insurance' ? 'decline_insurance' : 'stand').state;
  const session = await deps.sessions.get(deps.db, round.sessionId);
  try {
    const closed = await closeBlackjack(deps, operator, claimed, state, { from: ['active'], launchToken: session.launchToken });
    return { roundId: round.roundId, operation: 'credit', outcome: closed.round.status === 'credit_pending' ? 'pending' : 'succeeded' };
  } catch (err) {
    if (err instanceof RoundBusyError) return null;
    throw err;
  }
};
