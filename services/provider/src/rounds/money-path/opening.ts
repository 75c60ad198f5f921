/**
 * Opening a round, every game: the nonce of the player's seed pair, the round and, for a paid
 * round, its debit recorded, then sent; a free-bet round (issue 17) uses one of the player's free
 * bets instead and sends no debit. A debit without a positive answer ends the round `error`
 * (refused at the first attempt) or rolls it back (pending-retries.ts).
 */
import { randomUUID } from 'node:crypto';
import type { GameType } from '@gp/game-core/games';
import { AppError } from '../../errors.js';
import { annotateRound } from '../../infra/tracing.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import type { SessionWithToken } from '../../sessions/sessions.js';
import { currentSeedPair } from '../../store/seed-pairs.js';
import type { IdempotencyScope } from '../idempotency.js';
import { useFreeBet } from '../free-bet-store.js';
import { isCleanRefusal, outcomeError, type WalletOutcome } from '../../wallet/wallet-client.js';
import { openFreeBetRound as insertFreeBetRound, openRoundWithDebit, updateRound } from '../round-store/writes.js';
import type { Callback, Round } from '../round-store/rows.js';
import { creditBody, creditKey, debitBody, debitKey, leaseUntil, type MoneyDeps, newCallback, sendCallback } from './callbacks.js';
import { rollbackRound } from './pending-retries.js';


export interface OpenRoundInput {
  session: SessionWithToken;
  operator: OperatorWithSecret;
  gameType: GameType;
  amount: bigint;
  params: Record<string, unknown>;
  clientSeed: string | undefined;
}

export interface OpenedRound {
  round: Round;
  debit: Callback;
  serverSeed: string;
  serverSeedHash: string;
}

/**
 * Opens a round in one statement (round-store.ts `openRoundWithDebit`): the nonce of the
 * player's seed pair, the round as `debit_requested`, its debit recorded and the request's key
 * claimed. A Mines or Blackjack round deals its state from the committed seed at that nonce first
 * (`deal`), and the statement applies only if the nonce is still the next one (else it deals again).
 */
export async function openRound(
  deps: MoneyDeps,
  input: OpenRoundInput,
  opts: { claim: IdempotencyScope | null; deal?: (pair: { serverSeed: string; clientSeed: string; nonce: bigint }) => unknown },
): Promise<OpenedRound> {
  const { session, operator } = input;
  const roundId = randomUUID();
  annotateRound(roundId);
  const ref = { roundId, operatorId: session.operatorId, playerRef: session.playerRef, gameType: input.gameType, currency: session.currency };
  const debit = newCallback(deps, operator, ref, {
    operation: 'debit',
    purpose: 'bet',
    key: debitKey(roundId),
    amount: input.amount,
    body: debitBody(ref, input.amount, session.launchToken),
  });
  for (let attempt = 0; attempt < 5; attempt++) {
    let dealt: { state: unknown; expect: { seedPairId: string; nonce: bigint } } | undefined;
    if (opts.deal) {
      const pair = await currentSeedPair(deps.db, session.operatorId, session.playerRef);
      const clientSeed = input.clientSeed ?? pair.clientSeed;
      dealt = { state: opts.deal({ serverSeed: pair.serverSeed, clientSeed, nonce: pair.nextNonce }), expect: { seedPairId: pair.id, nonce: pair.nextNonce } };
    }
    const opened = await openRoundWithDebit(deps.db, {
      round: { ...ref, sessionId: session.sessionId, amount: input.amount, params: input.params, leaseUntil: leaseUntil(deps.config), ...(dealt ? { state: dealt.state } : {}) },
      debit,
      clientSeed: input.clientSeed,
      claim: opts.claim,
      ...(dealt ? { expect: dealt.expect } : {}),
    });
    if (opened) {
      if (opts.claim) opts.claim.claimed = true;
      return { round: opened.round, debit: opened.debit, serverSeed: opened.serverSeed, serverSeedHash: opened.serverSeedHash };
    }
    // No current seed pair yet (a first bet), or the nonce moved on (another bet of the player): again.
    if (!opts.deal) await currentSeedPair(deps.db, session.operatorId, session.playerRef);
  }
  throw new Error(`round ${roundId} could not take a nonce`);
}

/**
 * Sends the opening debit. Confirmed: answers the casino balance (the round stays
 * `debit_requested` for the caller to move on). Refused at the first attempt: the round ends
 * `error` and the refusal is thrown. Ambiguous, or refused only at the retry (the unanswered
 * first attempt may still land): the debit is rolled back and the error thrown with the round's status.
 */
export async function debitOpenedRound(deps: MoneyDeps, operator: OperatorWithSecret, opened: OpenedRound): Promise<bigint | null> {
  const { outcome, balance } = await sendCallback(deps, operator, opened.debit);
  if (outcome.kind === 'confirmed') return balance;
  return debitNotConfirmed(deps, operator, opened.round, outcome);
}

/** A debit without a positive answer: refused at the first attempt → `error`; else rolled back. Throws the error with the round's status. */
export async function debitNotConfirmed(deps: MoneyDeps, operator: OperatorWithSecret, round: Round, outcome: WalletOutcome): Promise<never> {
  const error = outcomeError(outcome);
  if (isCleanRefusal(outcome)) {
    const ended = await updateRound(deps.db, round.roundId, 'debit_requested', { status: 'error', errorCode: error.code, errorMessage: error.message, leaseUntil: null, settled: true });
    if (ended) deps.onStatus?.(ended);
    throw error.withRound(round.roundId, 'error');
  }
  const status = await rollbackRound(deps, operator, round, ['debit_requested'], 'debit not confirmed', error);
  throw error.withRound(round.roundId, status);
}


/** What settling a bet fixed: its result object, multiplier and payout. */
export interface Settlement {
  result: unknown;
  multiplier4: bigint;
  payout: bigint;
}

/* ------------------------------------------------------ free bets (issue 17): no debit, one credit */

/** Thrown inside the opening transaction when the nonce moved on: the transaction (the free bet used) is rolled back and the opening starts again. */
class NonceMoved extends Error {}

export interface OpenFreeBetInput extends OpenRoundInput {
  campaignId: string;
}

/**
 * Opens a free-bet round: one transaction uses one of the player's free bets (free_bet_grants:
 * `used + 1` only while `used < granted`, a concurrent request waits for the row and then finds
 * none left) and, in one statement, takes the nonce and inserts the round with its campaign. No
 * debit is recorded or sent, ever.
 *  - a settled game (`settle`): the outcome is computed from the committed seed at the nonce first,
 *    so the round is inserted with its result fixed (`credit_pending`) and its one credit recorded,
 *    `freeBet: true` and `campaignId` in the body; a settlement that fails (dice's window) throws
 *    before anything is written, so the free bet is never used (it stays the player's);
 *  - Mines (`deal`): the round opens `active` with its dealt state.
 * `refusal` says why no free bet could be used (ACTION_NOT_AVAILABLE); it is thrown with nothing written.
 */
export async function openFreeBetRound(
  deps: MoneyDeps,
  input: OpenFreeBetInput,
  opts: {
    claim: IdempotencyScope | null;
    settle?: (pair: { serverSeed: string; clientSeed: string; nonce: bigint }) => Settlement;
    deal?: (pair: { serverSeed: string; clientSeed: string; nonce: bigint }) => unknown;
    refusal: () => Promise<AppError>;
  },
): Promise<{ round: Round; credit: Callback | null; serverSeed: string; serverSeedHash: string }> {
  const { session, operator } = input;
  const roundId = randomUUID();
  const ref = { roundId, operatorId: session.operatorId, playerRef: session.playerRef, gameType: input.gameType, currency: session.currency, freeBetCampaignId: input.campaignId };
  for (let attempt = 0; attempt < 5; attempt++) {
    const pair = await currentSeedPair(deps.db, session.operatorId, session.playerRef);
    const seeds = { serverSeed: pair.serverSeed, clientSeed: input.clientSeed ?? pair.clientSeed, nonce: pair.nextNonce };
    const settled = opts.settle?.(seeds);
    const state = opts.deal?.(seeds);
    try {
      const opened = await deps.db.transaction(async (tx) => {
        const used = await useFreeBet(tx, { campaignId: input.campaignId, operatorId: session.operatorId, playerRef: session.playerRef });
        if (!used) return null;
        const row = await insertFreeBetRound(tx, {
          round: { ...ref, sessionId: session.sessionId, amount: input.amount, params: input.params, leaseUntil: settled ? leaseUntil(deps.config) : null, ...(state !== undefined ? { state } : {}) },
          clientSeed: input.clientSeed,
          expect: { seedPairId: pair.id, nonce: pair.nextNonce },
          claim: opts.claim,
          ...(settled
            ? {
                settled: {
                  ...settled,
                  credit: newCallback(deps, operator, ref, { operation: 'credit', purpose: 'win', key: creditKey(roundId), amount: settled.payout, body: creditBody(ref, settled.payout, session.launchToken) }),
                },
              }
            : {}),
        });
        if (!row) throw new NonceMoved();
        return row;
      });
      if (!opened) throw await opts.refusal();
      if (opts.claim) opts.claim.claimed = true;
      deps.onStatus?.(opened.round);
      return opened;
    } catch (err) {
      if (!(err instanceof NonceMoved)) throw err;
    }
  }
  throw new Error(`free-bet round ${roundId} could not take a nonce`);
}
