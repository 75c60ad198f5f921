/**
 * Opening a round, every game, paid or free (one flow, the funding a parameter): the nonce of the
 * player's seed pair, the round and its first callback in one statement, the request's key claimed.
 * A paid round records its debit (sent next: `debitOpenedRound` here, or settled-bet.ts,
 * active-round.ts); a free-bet round (issue 17) uses one of the player's free bets in the same
 * transaction and never sends a debit. A debit without a positive answer ends the round `error`
 * (refused at the first attempt) or rolls it back (pending-retries.ts).
 */
import type { GameType } from '@gp/game-core/games';
import { newRoundId } from '../../infra/random.js';
import { annotateRound } from '../../infra/tracing.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import type { SessionWithToken } from '../../sessions/sessions.js';
import { currentSeedPair } from '../../store/seed-pairs.js';
import type { IdempotencyScope } from '../idempotency.js';
import { useFreeBet } from '../free-bet-store.js';
import { freeBetRefusal } from '../free-bets.js';
import { isCleanRefusal, outcomeError, type WalletOutcome } from '../../wallet/wallet-client.js';
import { insertOpenRound, type OpeningFunding } from '../round-store/round-opening.js';
import { updateRound } from '../round-store/writes.js';
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

/** How the stake is paid: a debit to the casino, or one of the player's free bets of a campaign (no debit). */
export type Funding = { kind: 'debit' } | { kind: 'free-bet'; campaignId: string };

export const PAID: Funding = { kind: 'debit' };
export const fundingOf = (freeBetCampaignId: string | undefined): Funding =>
  freeBetCampaignId === undefined ? PAID : { kind: 'free-bet', campaignId: freeBetCampaignId };

/** What settling a bet fixed: its result object, multiplier and payout. */
export interface Settlement {
  result: unknown;
  multiplier4: bigint;
  payout: bigint;
}

/** The committed seeds of the round's nonce, from which its state or outcome is computed. */
export interface Seeds {
  serverSeed: string;
  clientSeed: string;
  nonce: bigint;
}

export interface OpenedRound {
  round: Round;
  /** the opening debit, recorded and not sent yet; null for a free bet */
  debit: Callback | null;
  /** a settled free bet's one credit, recorded and not sent yet; else null */
  credit: Callback | null;
  serverSeed: string;
  serverSeedHash: string;
}

/** Thrown inside a free bet's opening transaction when the nonce moved on: the transaction (the free bet used) is rolled back and the opening starts again. */
class NonceMoved extends Error {}

/**
 * Opens a round in one statement (round-store/writes.ts `insertOpenRound`): the nonce of the
 * player's seed pair, the round, its first callback and the request's key. `deal` (Mines,
 * Blackjack) computes the state from the committed seed at that nonce first, and the statement
 * applies only if the nonce is still the next one (else it deals again).
 *  - paid (`funding.kind === 'debit'`): the round opens `debit_requested` with its debit recorded;
 *    a settled bet is settled once the debit is confirmed (settled-bet.ts), so `settle` is not used;
 *  - a free bet: one transaction uses one of the player's free bets (free_bet_grants: `used + 1`
 *    only while `used < granted`, a concurrent request waits for the row and then finds none left)
 *    and runs the statement. A settled game (`settle`) is settled from the committed seed first and
 *    opens `credit_pending` with its one credit recorded (`freeBet: true`, `campaignId`); a
 *    settlement that fails (dice's window) throws before anything is written, so the free bet
 *    stays the player's. Mines opens `active` with its dealt state. No free bet left:
 *    ACTION_NOT_AVAILABLE saying why, with nothing written.
 */
export async function openRound(
  deps: MoneyDeps,
  input: OpenRoundInput,
  opts: { claim: IdempotencyScope | null; funding: Funding; deal?: (seeds: Seeds) => unknown; settle?: (seeds: Seeds) => Settlement },
): Promise<OpenedRound> {
  const { session, operator, amount } = input;
  const free = opts.funding.kind === 'free-bet' ? opts.funding : null;
  const roundId = newRoundId();
  annotateRound(roundId);
  const ref = {
    roundId,
    operatorId: session.operatorId,
    playerRef: session.playerRef,
    gameType: input.gameType,
    currency: session.currency,
    freeBetCampaignId: free?.campaignId ?? null,
  };
  const debit = free
    ? null
    : newCallback(deps, operator, ref, {
        operation: 'debit',
        purpose: 'bet',
        key: debitKey(roundId),
        amount,
        body: debitBody(ref, amount, session.launchToken),
      });
  for (let attempt = 0; attempt < 5; attempt++) {
    // A paid settled bet takes whatever nonce is next; anything computed at opening needs to know which.
    const pair = opts.deal || free ? await currentSeedPair(deps.db, session.operatorId, session.playerRef) : null;
    const seeds = pair ? { serverSeed: pair.serverSeed, clientSeed: input.clientSeed ?? pair.clientSeed, nonce: pair.nextNonce } : null;
    const settled = free && seeds ? opts.settle?.(seeds) : undefined;
    const state = seeds ? opts.deal?.(seeds) : undefined;
    const statement = {
      round: {
        ...ref,
        sessionId: session.sessionId,
        amount,
        params: input.params,
        leaseUntil: free && !settled ? null : leaseUntil(deps.config),
        ...(state !== undefined ? { state } : {}),
      },
      funding: (debit
        ? { kind: 'debit', debit }
        : {
            kind: 'free-bet',
            campaignId: free!.campaignId,
            ...(settled
              ? {
                  settled: {
                    ...settled,
                    credit: newCallback(deps, operator, ref, {
                      operation: 'credit',
                      purpose: 'win',
                      key: creditKey(roundId),
                      amount: settled.payout,
                      body: creditBody(ref, settled.payout, session.launchToken),
                    }),
                  },
                }
              : {}),
          }) satisfies OpeningFunding,
      clientSeed: input.clientSeed,
      claim: opts.claim,
      ...(pair ? { expect: { seedPairId: pair.id, nonce: pair.nextNonce } } : {}),
    };
    let opened: Awaited<ReturnType<typeof insertOpenRound>>;
    if (free) {
      try {
        opened = await deps.db.transaction(async (tx) => {
          if (!(await useFreeBet(tx, { campaignId: free.campaignId, operatorId: session.operatorId, playerRef: session.playerRef }))) return null;
          const row = await insertOpenRound(tx, statement);
          if (!row) throw new NonceMoved();
          return row;
        });
      } catch (err) {
        if (err instanceof NonceMoved) continue;
        throw err;
      }
      if (!opened) throw await freeBetRefusal(deps, free.campaignId, session.playerRef);
    } else {
      opened = await insertOpenRound(deps.db, statement);
    }
    if (opened) {
      if (opts.claim) opts.claim.claimed = true;
      if (free) deps.onStatus?.(opened.round);
      return {
        round: opened.round,
        debit: debit ? opened.callback : null,
        credit: debit ? null : opened.callback,
        serverSeed: opened.serverSeed,
        serverSeedHash: opened.serverSeedHash,
      };
    }
    // No current seed pair yet (a first bet), or the nonce moved on (another bet of the player): again.
    if (!pair) await currentSeedPair(deps.db, session.operatorId, session.playerRef);
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
  if (!opened.debit) return null; // a free bet: nothing to debit
  const { outcome, balance } = await sendCallback(deps, operator, opened.debit);
  if (outcome.kind === 'confirmed') return balance;
  return debitNotConfirmed(deps, operator, opened.round, outcome);
}

/** A debit without a positive answer: refused at the first attempt → `error`; else rolled back. Throws the error with the round's status. */
export async function debitNotConfirmed(deps: MoneyDeps, operator: OperatorWithSecret, round: Round, outcome: WalletOutcome): Promise<never> {
  const error = outcomeError(outcome);
  if (isCleanRefusal(outcome)) {
    const ended = await updateRound(deps.db, round.roundId, 'debit_requested', {
      status: 'error',
      errorCode: error.code,
      errorMessage: error.message,
      leaseUntil: null,
      settled: true,
    });
    if (ended) deps.onStatus?.(ended);
    throw error.withRound(round.roundId, 'error');
  }
  const status = await rollbackRound(deps, operator, round, ['debit_requested'], 'debit not confirmed', error);
  throw error.withRound(round.roundId, status);
}
