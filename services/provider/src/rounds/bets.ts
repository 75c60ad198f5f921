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
import { campaignForBet, freeBetRefusal } from './free-bets.js';
import { creditAndFinish, debitAndSettle } from './money-path/settled-bet.js';
import { openFreeBetRound, openRound } from './money-path/opening.js';
import { latestBalance } from '../sessions/player-balances.js';
import { openingChecks, type RoundDeps } from './round-actions.js';
import { getRound } from './round-store/reads.js';
import type { Round } from './round-store/rows.js';
import { isFailed } from './round-status.js';
import { betView, betViewOf, failedRoundError, type BetView } from './round-view.js';

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

/** The answer a key gives once its round has moved on (a pending round that finished). */
async function betAnswer(deps: RoundDeps, round: Round): Promise<BetView> {
  if (isFailed(round)) throw failedRoundError(round);
  return betView(deps.db, round);
}

export async function placeBet(deps: RoundDeps, input: PlaceBetInput): Promise<BetView> {
  if (!isInstantGame(input.gameType)) {
    throw new AppError('VALIDATION_ERROR', `${input.gameType} is played through its active-round endpoints, not POST /api/bets`);
  }
  if (input.freeBetCampaignId !== undefined) return placeFreeBet(deps, input, input.freeBetCampaignId);
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const bet = prepareInstantBet(input.gameType, input.params);
  const amount = parseAmount(input.amount, session.currency);
  const scope = scopeOf(session, input.idempotencyKey, { op: 'bet', gameType: bet.gameType, amount, clientSeed: input.clientSeed ?? null, params: bet.params });

  return runIdempotent(deps.db, {
    scope,
    waitMs: deps.config.idempotencyWaitMs,
    fromRound: (round) => betAnswer(deps, round),
    async execute() {
      const { operator } = await openingChecks(deps, session, bet.gameType, { autobet: input.autobet });
      checkStake(amount, operator);
      checkMaxPayout(amount, bet.maxMultiplier4, operator);
      const opened = await openRound(deps, { session, operator, gameType: bet.gameType, amount, params: bet.params, clientSeed: input.clientSeed }, { claim: scope });
      const { round } = opened;
      const closed = await debitAndSettle(deps, operator, opened, session.launchToken, () => {
        const settled = bet.settle(floats(opened.serverSeed, round.clientSeed, round.nonce, bet.floatsNeeded));
        return { ...settled, payout: applyMultiplier(amount, settled.multiplier4) };
      });
      // null: the retry job took the round over meanwhile (its lease ran out): answer what it became.
      if (!closed) return betAnswer(deps, (await getRound(deps.db, round.roundId)) ?? round);
      const pair = { serverSeedHash: opened.serverSeedHash, serverSeed: opened.serverSeed, revealed: false };
      const finished = await creditAndFinish(deps, operator, closed.round, closed.credit, scope, (final, credit, balance) =>
        betViewOf(final, [closed.debit, credit], pair, { balance: balance ?? closed.balance }),
      );
      if (finished) return new StoredAnswer(finished.answer);
      return betAnswer(deps, (await getRound(deps.db, round.roundId)) ?? round);
    },
  }, deps.metrics);
}

/**
 * A free bet (issue 17): the campaign's game and amount, its params as defaults under the
 * request's; no debit. One transaction uses the free bet and opens the round with its result
 * fixed and its credit recorded (money-path/opening.ts `openFreeBetRound`); then the credit is sent and
 * the answer stored with the key, as for a paid bet. Same idempotency rules: the key's request
 * includes the campaign.
 */
async function placeFreeBet(deps: RoundDeps, input: PlaceBetInput, campaignId: string): Promise<BetView> {
  const gameType = input.gameType;
  if (!isInstantGame(gameType)) throw new AppError('VALIDATION_ERROR', `${gameType} is not played through POST /api/bets`);
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const amount = parseAmount(input.amount, session.currency);
  const campaign = await campaignForBet(deps, session, campaignId, gameType, amount);
  const bet = prepareInstantBet(gameType, { ...campaign.params, ...((input.params as Record<string, unknown> | undefined) ?? {}) });
  const scope = scopeOf(session, input.idempotencyKey, { op: 'bet', gameType: bet.gameType, amount, clientSeed: input.clientSeed ?? null, params: bet.params, freeBetCampaignId: campaignId });

  return runIdempotent(deps.db, {
    scope,
    waitMs: deps.config.idempotencyWaitMs,
    fromRound: (round) => betAnswer(deps, round),
    async execute() {
      const { operator } = await openingChecks(deps, session, bet.gameType, { autobet: input.autobet });
      checkMaxPayout(amount, bet.maxMultiplier4, operator);
      const opened = await openFreeBetRound(
        deps,
        { session, operator, gameType: bet.gameType, amount, params: bet.params, clientSeed: input.clientSeed, campaignId },
        {
          claim: scope,
          settle: (seeds) => {
            const settled = bet.settle(floats(seeds.serverSeed, seeds.clientSeed, seeds.nonce, bet.floatsNeeded));
            return { ...settled, payout: applyMultiplier(amount, settled.multiplier4) };
          },
          refusal: () => freeBetRefusal(deps, campaignId, session.playerRef),
        },
      );
      const credit = opened.credit!;
      const pair = { serverSeedHash: opened.serverSeedHash, serverSeed: opened.serverSeed, revealed: false };
      const before = await latestBalance(deps.db, session.operatorId, session.playerRef, session.currency);
      const finished = await creditAndFinish(deps, operator, opened.round, credit, scope, (final, sent, balance) => betViewOf(final, [sent], pair, { balance: balance ?? before }));
      if (finished) return new StoredAnswer(finished.answer);
      return betAnswer(deps, (await getRound(deps.db, opened.round.roundId)) ?? opened.round);
    },
  });
}
