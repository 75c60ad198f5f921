/**
 * POST /api/bets: dice, limbo, plinko and keno, settled in one request (SPEC.md endpoint rules
 * 1–4, CONTRACT.md §3, §10, §13). The key is looked up first; a new key meets every check that
 * can be made before money moves; then nonce + round + debit record (one transaction with the
 * idempotency key) → debit → settle → credit → final, on the money path.
 */
import { floats } from '@gp/game-core/fairness';
import { isInstantGame, prepareInstantBet, type GameType } from '@gp/game-core/games';
import { applyMultiplier, checkMaxPayout, checkStake, parseAmount } from '@gp/game-core/money';
import { AppError, asAppError } from '../errors.js';
import { claimKey, runIdempotent, scopeOf } from './idempotency.js';
import { closeRound, debitOpenedRound, insertRoundWithDebit, rollbackRound } from './money-path.js';
import { openingChecks, type RoundDeps } from './round-actions.js';
import type { Round } from './round-store.js';
import { isFailed } from './round-status.js';
import { betView, failedRoundError } from './round-view.js';

export interface PlaceBetInput {
  sessionId: string;
  gameType: GameType;
  amount: string;
  idempotencyKey: string;
  clientSeed?: string | undefined;
  params?: unknown;
}

/** The answer a key gives once its round has moved on (a pending round that finished). */
async function betAnswer(deps: RoundDeps, round: Round) {
  if (isFailed(round)) throw failedRoundError(round);
  return betView(deps.db, round);
}

export async function placeBet(deps: RoundDeps, input: PlaceBetInput) {
  if (!isInstantGame(input.gameType)) {
    throw new AppError('VALIDATION_ERROR', `${input.gameType} is played through its active-round endpoints, not POST /api/bets`);
  }
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const bet = prepareInstantBet(input.gameType, input.params);
  const amount = parseAmount(input.amount, session.currency);
  const scope = scopeOf(session, input.idempotencyKey, { op: 'bet', gameType: bet.gameType, amount, clientSeed: input.clientSeed ?? null, params: bet.params });

  return runIdempotent(deps.db, {
    scope,
    waitMs: deps.config.idempotencyWaitMs,
    fromRound: (round) => betAnswer(deps, round),
    async execute() {
      const { operator } = await openingChecks(deps, session, bet.gameType);
      checkStake(amount, operator);
      checkMaxPayout(amount, bet.maxMultiplier4, operator);
      const opened = await deps.db.transaction(async (tx) => {
        const o = await insertRoundWithDebit(tx, deps, { session, operator, gameType: bet.gameType, amount, params: bet.params, clientSeed: input.clientSeed });
        await claimKey(tx, scope, o.round.roundId);
        return o;
      });
      const round = opened.round;
      const debitBalance = await debitOpenedRound(deps, operator, opened);

      let settled: { result: unknown; multiplier4: bigint };
      try {
        settled = bet.settle(floats(opened.serverSeed, round.clientSeed, round.nonce, bet.floatsNeeded));
      } catch (err) {
        // Settlement failed after the debit (SPEC.md endpoint rule 2, e.g. dice's window): roll back, answer with the round.
        const error = asAppError(err) ?? new AppError('INTERNAL_ERROR', 'the bet could not be settled');
        const status = await rollbackRound(deps, operator, round, ['debit_requested'], `settlement failed: ${error.code}`, error);
        throw error.withRound(round.roundId, status);
      }
      const closed = await closeRound(deps, operator, round, {
        from: ['debit_requested'],
        result: settled.result,
        multiplier4: settled.multiplier4,
        payout: applyMultiplier(amount, settled.multiplier4),
        closeStatus: 'settled',
        launchToken: session.launchToken,
      });
      return betView(deps.db, closed.round, { balance: closed.balance ?? debitBalance });
    },
  });
}
