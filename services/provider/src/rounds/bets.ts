/**
 * POST /api/bets: dice, limbo, plinko and keno, settled in one request (SPEC.md endpoint rules
 * 1–4, CONTRACT.md §3, §10, §13). Every check that can be made before money moves is made
 * first; then reserve nonce + round + debit record (one transaction with the idempotency key)
 * → debit → settle → credit → final.
 */
import { floats } from '@gp/game-core/fairness';
import { GAMES, isInstantGame, parseGameParams, settleInstant, type GameType, type InstantGameType } from '@gp/game-core/games';
import { applyMultiplier, checkMaxPayout, checkStake, parseAmount } from '@gp/game-core/money';
import { AppError, asAppError } from '../errors.js';
import type { SessionService, SessionWithToken } from '../sessions/sessions.js';
import { claimKey, requestHash, runIdempotent, type IdempotencyScope } from './idempotency.js';
import { closeRound, debitOpenedRound, insertRoundWithDebit, operatorFor, rollbackRound, type MoneyDeps } from './money-path.js';
import { getRound, type Round } from './round-store.js';
import { betView } from './round-view.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';

export interface PlaceBetInput {
  sessionId: string;
  gameType: GameType;
  amount: string;
  idempotencyKey: string;
  clientSeed?: string | undefined;
  params?: unknown;
}

export interface BetDeps extends MoneyDeps {
  sessions: SessionService;
}

/**
 * Operator and game checks shared by every round-opening request. They can change over time (an
 * admin disables a game, the wallet circuit opens), so they run only for a key seen for the first
 * time: a key that already reached the wallet answers with its round (CONTRACT.md §13).
 */
export async function openingChecks(deps: BetDeps, session: SessionWithToken, gameType: GameType): Promise<{ operator: OperatorWithSecret }> {
  const operator = await operatorFor(deps, session.operatorId);
  if (!operator.enabled) throw new AppError('INVALID_SESSION', 'this operator is disabled');
  // Every limit and callback of a session is in its one currency (a profile's currency is fixed once it has sessions).
  if (session.currency !== operator.currency) throw new AppError('CURRENCY_MISMATCH', `this session is in ${session.currency}, the profile now in ${operator.currency}`);
  if (!operator.enabledGames.includes(gameType)) throw new AppError('GAME_DISABLED', `${gameType} is disabled for this operator`);
  if (session.launchMode === 'single' && session.gameType !== gameType) {
    throw new AppError('SESSION_GAME_MISMATCH', `this session is for ${session.gameType}, not ${gameType}`);
  }
  if (deps.wallet.circuitOpen(operator.operatorId)) throw new AppError('CASINO_NETWORK_ERROR', 'the casino is unreachable right now; try again shortly');
  return { operator };
}

/** The answer a key gives once its round has moved on (a pending round that finished). */
export async function roundAnswer(deps: MoneyDeps, round: Round) {
  if (round.status === 'error' || round.status === 'cancelled' || round.status === 'rollback_pending') {
    throw new AppError((round.errorCode ?? 'CASINO_HTTP_ERROR') as AppError['code'], round.errorMessage ?? 'the bet did not go through').withRound(
      round.roundId,
      round.status,
    );
  }
  return betView(deps.db, round);
}

export async function placeBet(deps: BetDeps, input: PlaceBetInput) {
  if (!isInstantGame(input.gameType)) {
    throw new AppError('VALIDATION_ERROR', `${input.gameType} is played through its active-round endpoints, not POST /api/bets`);
  }
  const gameType: InstantGameType = input.gameType;
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const params = parseGameParams(gameType, input.params);
  const amount = parseAmount(input.amount, session.currency);

  const scope: IdempotencyScope = {
    operatorId: session.operatorId,
    sessionId: session.sessionId,
    key: input.idempotencyKey,
    requestHash: requestHash({ op: 'bet', gameType, amount, clientSeed: input.clientSeed ?? null, params }),
  };

  return runIdempotent(deps.db, {
    scope,
    waitMs: deps.config.idempotencyWaitMs,
    fromRound: (round) => roundAnswer(deps, round),
    async execute() {
      const { operator } = await openingChecks(deps, session, gameType);
      checkStake(amount, operator);
      checkMaxPayout(amount, GAMES[gameType].maxMultiplier4(params as never), operator);
      const opened = await deps.db.transaction(async (tx) => {
        const o = await insertRoundWithDebit(tx, deps, {
          session,
          operator,
          gameType,
          amount,
          params: params as Record<string, unknown>,
          clientSeed: input.clientSeed,
        });
        await claimKey(tx, scope, o.round.roundId);
        return o;
      });
      const round = opened.round;
      const debitBalance = await debitOpenedRound(deps, operator, opened);

      let settled: { result: unknown; multiplier4: bigint };
      try {
        const stream = floats(opened.serverSeed, round.clientSeed, round.nonce, GAMES[gameType].floatsNeeded(params as never));
        settled = settleInstant(gameType, stream, params as never);
      } catch (err) {
        const error = asAppError(err) ?? new AppError('INTERNAL_ERROR', 'the bet could not be settled');
        const status = await rollbackRound(deps, operator, round, ['debit_requested'], `settlement failed: ${error.code}`, error);
        throw error.withRound(round.roundId, status);
      }
      const payout = applyMultiplier(amount, settled.multiplier4);
      const closed = await closeRound(deps, operator, round, {
        from: ['debit_requested'],
        result: settled.result,
        multiplier4: settled.multiplier4,
        payout,
        closeStatus: 'settled',
        launchToken: session.launchToken,
      });
      const final = (await getRound(deps.db, round.roundId)) ?? closed.round;
      return betView(deps.db, final, { balance: closed.balance ?? debitBalance });
    },
  });
}
