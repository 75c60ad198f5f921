/**
 * POST /api/bets: dice, limbo, plinko and keno, settled in one request (SPEC.md endpoint rules
 * 1–4, CONTRACT.md §3, §10, §13). The checks that can be made before money moves come first;
 * then, on the money path, three statements: open (nonce + round + debit recorded + the key
 * claimed), the debit confirmed with the result fixed and the credit recorded, the credit
 * answered with the final status and the request's answer stored. A key already used replays
 * its answer (idempotency.ts).
 */
import { floats } from '@gp/game-core/fairness';
import { isInstantGame, prepareInstantBet, type GameType } from '@gp/game-core/games';
import { applyMultiplier, checkMaxPayout, checkStake, parseAmount } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import { runIdempotent, scopeOf, StoredAnswer } from './idempotency.js';
import { campaignForBet } from './free-bets.js';
import { creditAndFinish, settleOpenedBet } from './money-path/settled-bet.js';
import { fundingOf, openRound, type Seeds } from './money-path/opening.js';
import { openingChecks, type RoundDeps } from './round-actions.js';
import { callbacksOfRound, getRound } from './round-store/reads.js';
import type { Callback, Round } from './round-store/rows.js';
import { isFailed } from './round-status.js';
import { betViewOf, failedRoundError, type BetView } from './round-view.js';
import { answeredBalance } from './money-path/callbacks.js';
import { seedPairById } from '../store/seed-pairs.js';

export interface PlaceBetInput {
  sessionId: string;
  gameType: GameType;
  amount: string;
  idempotencyKey: string;
  clientSeed?: string | undefined;
  params?: unknown;
  /** A free bet of this campaign (issue 17): no debit, one credit of the payout. */
  freeBetCampaignId?: string | undefined;
  /** A bet of an autobet run (issue 27). */
  autobet?: boolean | undefined;
}

/**
 * The answer of a bet's key from its round (a pending round that finished, a settled round whose
 * answer was not stored, a round the retry job took over): the answer its request gave or would
 * have given — the round as stored, the balance its callbacks reported (the credit's, else the
 * debit's: `answeredBalance`), and its seed pair as the bet saw it, the server seed not revealed
 * (a later rotation does not change a bet's answer). A failed round answers its error.
 */
async function betAnswer(deps: RoundDeps, round: Round): Promise<BetView> {
  if (isFailed(round)) throw failedRoundError(round);
  const [callbacks, pair] = await Promise.all([callbacksOfRound(deps.db, round.roundId), seedPairById(deps.db, round.seedPairId)]);
  return answerOf(round, callbacks, pair?.serverSeedHash ?? null, answeredBalance(callbacks, round.currency));
}

/** A bet's answer: `betAnswer` rebuilds it from the stored round with the same function. */
const answerOf = (round: Round, callbacks: Callback[], serverSeedHash: string | null, balance: bigint | null): BetView =>
  betViewOf(round, callbacks, serverSeedHash === null ? null : { serverSeedHash, serverSeed: '', revealed: false }, { balance });

/**
 * One flow for a paid bet and a free bet (issue 17), the funding a parameter. A free bet takes its
 * campaign's game and amount, its params as defaults under the request's, and sends no debit: one
 * transaction uses the free bet and opens the round with its result fixed and its credit recorded
 * (money-path/opening.ts); the key's request includes the campaign. Then, for both, the credit is
 * sent and the answer stored with the key.
 */
export async function placeBet(deps: RoundDeps, input: PlaceBetInput): Promise<BetView> {
  if (!isInstantGame(input.gameType)) {
    throw new AppError('VALIDATION_ERROR', `${input.gameType} is played through its active-round endpoints, not POST /api/bets`);
  }
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const funding = fundingOf(input.freeBetCampaignId);
  let params = input.params;
  let amount: bigint | undefined;
  if (funding.kind === 'free-bet') {
    amount = parseAmount(input.amount, session.currency);
    const campaign = await campaignForBet(deps, session, funding.campaignId, input.gameType, amount);
    params = { ...campaign.params, ...((input.params as Record<string, unknown> | undefined) ?? {}) };
  }
  const bet = prepareInstantBet(input.gameType, params);
  const stake = amount ?? parseAmount(input.amount, session.currency);
  const free = funding.kind === 'free-bet' ? { freeBetCampaignId: funding.campaignId } : {};
  const scope = scopeOf(session, input.idempotencyKey, {
    op: 'bet',
    gameType: bet.gameType,
    amount: stake,
    clientSeed: input.clientSeed ?? null,
    params: bet.params,
    ...free,
  });

  return runIdempotent(
    deps.db,
    {
      scope,
      waitMs: deps.config.idempotencyWaitMs,
      fromRound: (round) => betAnswer(deps, round),
      rebuildsClosedAnswer: true,
      async execute() {
        const { operator } = await openingChecks(deps, session, bet.gameType, { autobet: input.autobet });
        if (funding.kind === 'debit') checkStake(stake, operator); // a free bet's amount is its campaign's, checked when it was made
        checkMaxPayout(stake, bet.maxMultiplier4, operator);
        const settle = (seeds: Seeds) => {
          const settled = bet.settle(floats(seeds.serverSeed, seeds.clientSeed, seeds.nonce, bet.floatsNeeded));
          return { ...settled, payout: applyMultiplier(stake, settled.multiplier4) };
        };
        const opened = await openRound(
          deps,
          { session, operator, gameType: bet.gameType, amount: stake, params: bet.params, clientSeed: input.clientSeed },
          { claim: scope, funding, settle },
        );
        const { round } = opened;
        const closed = await settleOpenedBet(deps, operator, opened, session.launchToken, settle);
        // null: the retry job took the round over meanwhile (its lease ran out): answer what it became.
        if (!closed) return betAnswer(deps, (await getRound(deps.db, round.roundId)) ?? round);
        const callbacksWith = (credit: Callback) => [...closed.callbacks, credit];
        let balance: bigint | null = null;
        const finished = await creditAndFinish(
          deps,
          operator,
          closed.round,
          closed.credit,
          scope,
          (final, credit, reported) => answerOf(final, callbacksWith(credit), opened.serverSeedHash, (balance = reported ?? closed.balance)),
          {
            unstored: closed.unstored,
            // not stored when betAnswer rebuilds it: the same round, callbacks and hash, so only the balance can differ
            rebuilt: (_answer, credit) => answeredBalance(callbacksWith(credit), round.currency) === balance,
            balanceIn: 'round',
          },
        );
        if (finished) return new StoredAnswer(finished.answer);
        return betAnswer(deps, (await getRound(deps.db, round.roundId)) ?? round);
      },
    },
    deps.metrics,
  );
}
