/**
 * The bet as clients see it (CONTRACT.md §12): settled answers of POST /api/bets, the final
 * answers of Mines and Blackjack, and GET /api/bets/{roundId} with its callback audit. Never a
 * secret: the audit shows the request bodies with the launch token masked, and the server seed
 * only once its pair was rotated.
 */
import type { GameResult, GameType } from '@gp/game-core/games';
import { amountJson, multiplierJson, type CurrencyCode } from '@gp/game-core/money';
import type { LosslessNumber } from 'lossless-json';
import { parseJson } from '../infra/json.js';
import type { Queryable } from '../store/db.js';
import { seedPairById, type SeedPair } from '../store/seed-pairs.js';
import { callbacksOfRound } from './round-store/reads.js';
import type { Callback, Round } from './round-store/rows.js';
import { publicStatusOf, RESULT_STATUSES, type PublicRoundStatus } from './round-status.js';
import { AppError } from '../errors.js';

function jsonOrText(text: string | null): unknown {
  if (text === null) return null;
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/**
 * The answer of a round that did not go through (`error`, `cancelled`, `rollback_pending`): its
 * error with the round (CONTRACT.md §2), e.g. for a key whose pending round has since moved on.
 */
export function failedRoundError(round: Round): AppError {
  const code = round.errorCode !== null && AppError.isCode(round.errorCode) ? round.errorCode : 'CASINO_HTTP_ERROR';
  return new AppError(code, round.errorMessage ?? 'the bet did not go through').withRound(round.roundId, round.status);
}

export function auditRecord(c: Callback) {
  return {
    method: c.method,
    path: c.path,
    url: c.url,
    idempotencyKey: c.idempotencyKey,
    attemptCount: c.attemptCount,
    requestBody: jsonOrText(c.requestBody),
    responseBody: jsonOrText(c.responseBody),
    statusCode: c.statusCode,
    callbackStatus: c.callbackStatus,
    errorMessage: c.errorMessage,
    createdAt: c.createdAt,
  };
}

export function casinoTransactions(callbacks: Callback[]) {
  const id = (c: Callback | undefined) => (c && c.callbackStatus === 'succeeded' ? c.casinoTransactionId : null);
  const bet = callbacks.find((c) => c.operation === 'debit' && c.purpose === 'bet');
  return {
    debit: id(bet),
    credit: id(callbacks.find((c) => c.operation === 'credit')),
    rollback: id(callbacks.find((c) => c.operation === 'rollback' && c.debitIdempotencyKey === bet?.idempotencyKey)),
    // Extra debits (Blackjack insurance, double, split) that stand: confirmed and not rolled back.
    extraDebits: callbacks
      .filter((c) => c.operation === 'debit' && c.purpose !== 'bet' && c.callbackStatus === 'succeeded')
      .filter((c) => !callbacks.some((r) => r.operation === 'rollback' && r.debitIdempotencyKey === c.idempotencyKey && r.callbackStatus === 'succeeded'))
      .map((c) => ({ kind: c.purpose, id: c.casinoTransactionId })),
  };
}

export interface ViewOptions {
  /** The game's result as the player may see it now (active rounds); defaults to the stored result. */
  result?: GameResult | null;
  balance?: bigint | null;
  audit?: boolean;
}

/** The bet answer (CONTRACT.md §12; http/answers.ts `betAnswer` is its schema). */
export interface BetView {
  roundId: string;
  roundStatus: PublicRoundStatus;
  bet: {
    gameType: GameType;
    amount: LosslessNumber;
    totalStaked: LosslessNumber;
    currency: CurrencyCode;
    params: Record<string, unknown>;
    multiplier: LosslessNumber;
    payout: LosslessNumber;
    won: boolean;
    operatorId: string;
    playerRef: string;
    createdAt: string;
    settledAt: string | null;
    freeBetCampaignId?: string;
  };
  result: GameResult | null;
  fairness: { serverSeedHash: string | null; clientSeed: string; nonce: number; serverSeed?: string };
  casinoTransactions: ReturnType<typeof casinoTransactions>;
  error?: { code: string; message: string | null };
  balance?: LosslessNumber;
  casinoCallbackAudit?: ReturnType<typeof auditRecord>[];
}

/** The bet answer of a round, read with its callbacks and seed pair. */
export async function betView(db: Queryable, round: Round, opts: ViewOptions = {}): Promise<BetView> {
  const [callbacks, pair] = await Promise.all([callbacksOfRound(db, round.roundId), seedPairById(db, round.seedPairId)]);
  return betViewOf(round, callbacks, pair, opts);
}

/** The seed pair as an answer shows it: the hash, and the seed only once revealed. */
export type PairView = Pick<SeedPair, 'serverSeedHash' | 'serverSeed' | 'revealed'>;

/** The bet answer of a round whose callbacks and seed pair the caller holds (no database read). */
export function betViewOf(round: Round, callbacks: Callback[], pair: PairView | null, opts: ViewOptions = {}): BetView {
  const money = (v: bigint) => amountJson(v, round.currency);
  const closing = RESULT_STATUSES.includes(round.status);
  const payout = closing && round.payout !== null ? round.payout : 0n;
  const multiplier = closing && round.multiplier4 !== null ? round.multiplier4 : 0n;
  const view: BetView = {
    roundId: round.roundId,
    roundStatus: publicStatusOf(round),
    bet: {
      gameType: round.gameType,
      amount: money(round.amount),
      totalStaked: money(round.totalStaked),
      currency: round.currency,
      params: round.params,
      multiplier: multiplierJson(multiplier),
      payout: money(payout),
      won: payout > round.totalStaked,
      operatorId: round.operatorId,
      playerRef: round.playerRef,
      createdAt: round.createdAt,
      settledAt: round.settledAt,
    },
    result: opts.result !== undefined ? opts.result : ((round.result ?? null) as GameResult | null),
    fairness: {
      serverSeedHash: pair?.serverSeedHash ?? null,
      clientSeed: round.clientSeed,
      nonce: Number(round.nonce),
      ...(pair?.revealed ? { serverSeed: pair.serverSeed } : {}),
    },
    casinoTransactions: casinoTransactions(callbacks),
  };
  if (round.errorCode && ['cancelled', 'rollback_pending', 'error'].includes(round.status)) {
    view.error = { code: round.errorCode, message: round.errorMessage };
  }
  if (round.freeBetCampaignId) view.bet.freeBetCampaignId = round.freeBetCampaignId;
  if (opts.balance !== undefined && opts.balance !== null) view.balance = money(opts.balance);
  if (opts.audit) view.casinoCallbackAudit = callbacks.map(auditRecord);
  return view;
}
