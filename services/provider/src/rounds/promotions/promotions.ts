/**
 * Promotions (issue 30, docs/promotions.md): tournaments and provably fair prize drops of an
 * operator profile. Created, listed, read and cancelled through the casino's signed operator API
 * (its own promotions only), the administrator token and the admin console (a tenant's staff:
 * their casino's); every creation and cancellation is in the config audit (staff/config-audit.ts).
 *
 * Refusals (CONTRACT.md §2 codes; the table is in docs/promotions.md):
 *   bad fields, `endsAt` not after `startsAt` or in the past, a tournament without `scoring`, a
 *   drop without `oneIn`                                   → VALIDATION_ERROR
 *   a game the profile does not offer                      → GAME_DISABLED
 *   unknown promotion                                      → NOT_FOUND
 *   another casino's promotion                             → FORBIDDEN
 *   cancelling an ended or finalized promotion; a leaderboard of a drop → ACTION_NOT_AVAILABLE
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { hashServerSeed, PRIZE_DROP_RULE, serverSeedFromBytes } from '@gp/game-core/fairness';
import type { GameType } from '@gp/game-core/games';
import { amountJson, parseAmount } from '@gp/game-core/money';
import { AppError } from '../../errors.js';
import { recordChange, type Actor } from '../../staff/config-audit.js';
import type { MoneyDeps } from '../money-path/callbacks.js';
import { awardsOf, type Award } from './award-store.js';
import {
  cancelPromotion,
  entryCount,
  getPromotion,
  insertPromotion,
  listPromotions,
  type PromoKind,
  type PromoStatus,
  type Promotion,
  type Scoring,
} from './promotion-store.js';

export const MAX_TOURNAMENT_PRIZES = 100;
export const MAX_DROP_PRIZES = 1000;
export const MAX_PROMO_PLAYERS = 10_000;

/** Who manages promotions: the administrator token, a casino's signed request (its own operator), or console staff (their tenant's profiles; null: all). */
export type PromoCaller = { kind: 'admin' } | { kind: 'operator'; operatorId: string } | { kind: 'staff'; operatorIds: string[] | null };

export function checkPromoScope(caller: PromoCaller, operatorId: string): void {
  if (caller.kind === 'operator' && caller.operatorId !== operatorId) throw new AppError('FORBIDDEN', 'a casino manages only its own promotions');
  if (caller.kind === 'staff' && caller.operatorIds !== null && !caller.operatorIds.includes(operatorId))
    throw new AppError('FORBIDDEN', 'this belongs to another casino');
}

/** A drop's seed is revealed once no bet can be drawn any more: cancelled, or ended and its last draw done. */
export const seedRevealed = (p: Promotion) => p.status === 'cancelled' || (p.status === 'ended' && p.finalizedAt !== null);

export function promotionView(p: Promotion) {
  const ended = seedRevealed(p);
  return {
    promoId: p.promoId,
    operatorId: p.operatorId,
    kind: p.kind,
    name: p.name,
    currency: p.currency,
    games: p.games,
    minBet: amountJson(p.minBet, p.currency),
    prizes: p.prizes.map((x) => amountJson(x, p.currency)),
    prizePool: amountJson(
      p.prizes.reduce((a, b) => a + b, 0n),
      p.currency,
    ),
    allPlayers: p.allPlayers,
    players: p.players,
    startsAt: p.startsAt,
    endsAt: p.endsAt,
    cancelledAt: p.cancelledAt,
    finalizedAt: p.finalizedAt,
    status: p.status,
    createdAt: p.createdAt,
    ...(p.kind === 'tournament'
      ? { scoring: p.scoring }
      : { oneIn: p.oneIn, rule: PRIZE_DROP_RULE, serverSeedHash: p.serverSeedHash, serverSeedRevealed: ended }),
  };
}

export function awardView(a: Award) {
  return {
    promoId: a.promoId,
    prize: a.prize,
    playerRef: a.playerRef,
    amount: amountJson(a.amount, a.currency),
    currency: a.currency,
    ...(a.score !== null ? { score: a.score } : {}),
    ...(a.roundId !== null ? { roundId: a.roundId, seq: a.seq } : {}),
    idempotencyKey: a.idempotencyKey,
    status: a.callbackStatus === 'succeeded' ? ('credited' as const) : ('credit_pending' as const),
    attemptCount: a.attemptCount,
    statusCode: a.statusCode,
    casinoTransactionId: a.casinoTransactionId,
    errorCode: a.errorCode,
    createdAt: a.createdAt,
    confirmedAt: a.confirmedAt,
  };
}

export interface CreatePromotionInput {
  kind: PromoKind;
  operatorId?: string | undefined;
  name?: string | undefined;
  games?: GameType[] | undefined;
  minBet?: string | undefined;
  prizes: string[];
  scoring?: Scoring | undefined;
  oneIn?: number | undefined;
  playerRefs?: string[] | undefined;
  startsAt?: string | undefined;
  endsAt: string;
}

export async function createPromotion(deps: MoneyDeps, caller: PromoCaller, actor: Actor, input: CreatePromotionInput) {
  const operatorId =
    caller.kind === 'operator'
      ? (input.operatorId ?? caller.operatorId)
      : (input.operatorId ?? (caller.kind === 'staff' && caller.operatorIds?.length === 1 ? caller.operatorIds[0] : undefined));
  if (!operatorId) throw new AppError('VALIDATION_ERROR', 'operatorId is required');
  checkPromoScope(caller, operatorId);
  const operator = await deps.operators.get(deps.db, operatorId);
  if (!operator) throw new AppError('NOT_FOUND', 'no such operator');
  const games = [...new Set(input.games ?? operator.enabledGames)];
  const off = games.filter((g) => !operator.enabledGames.includes(g));
  if (off.length) throw new AppError('GAME_DISABLED', `${off.join(', ')} ${off.length > 1 ? 'are' : 'is'} disabled for this operator`);
  if (games.length === 0) throw new AppError('VALIDATION_ERROR', 'games must name at least one game');
  const prizes = input.prizes.map((x, i) => parseAmount(x, operator.currency, { field: `prizes[${i}]` }));
  const max = input.kind === 'tournament' ? MAX_TOURNAMENT_PRIZES : MAX_DROP_PRIZES;
  if (prizes.length < 1 || prizes.length > max) throw new AppError('VALIDATION_ERROR', `prizes must list 1 to ${max} amounts`);
  const minBet = input.minBet === undefined ? 0n : parseAmount(input.minBet, operator.currency, { field: 'minBet', allowZero: true });
  if (input.kind === 'tournament' && !input.scoring)
    throw new AppError('VALIDATION_ERROR', 'a tournament needs scoring (multiplier, wagered, profit or biggestWin)');
  if (input.kind === 'prize_drop' && input.oneIn === undefined)
    throw new AppError('VALIDATION_ERROR', 'a prize drop needs oneIn (each qualifying bet wins with a chance of 1 in oneIn)');
  const startsAt = input.startsAt ? new Date(input.startsAt) : new Date();
  const endsAt = new Date(input.endsAt);
  if (endsAt.getTime() <= startsAt.getTime()) throw new AppError('VALIDATION_ERROR', 'endsAt must be after startsAt');
  if (endsAt.getTime() <= Date.now()) throw new AppError('VALIDATION_ERROR', 'endsAt must be in the future');
  const playerRefs = input.playerRefs ?? [];
  const seed = input.kind === 'prize_drop' ? serverSeedFromBytes(randomBytes(32)) : null;
  const promoId = randomUUID();
  await deps.db.transaction(async (tx) => {
    await insertPromotion(
      tx,
      {
        promoId,
        operatorId,
        kind: input.kind,
        name: input.name ?? null,
        currency: operator.currency,
        games,
        minBet,
        scoring: input.kind === 'tournament' ? input.scoring! : null,
        prizes,
        allPlayers: input.playerRefs === undefined,
        oneIn: input.kind === 'prize_drop' ? input.oneIn! : null,
        serverSeedEnc: seed === null ? null : deps.box.seal(seed),
        serverSeedHash: seed === null ? null : hashServerSeed(seed),
        startsAt,
        endsAt,
      },
      playerRefs,
    );
    const created = await getPromotion(tx, promoId);
    await recordChange(tx, actor, {
      action: 'promotion.created',
      tenantId: operator.tenantId,
      operatorId,
      targetType: 'promotion',
      targetId: promoId,
      before: null,
      after: { ...promotionView(created!), playerRefs: playerRefs.length },
    });
  });
  return promotionView((await getPromotion(deps.db, promoId))!);
}

export async function listPromotionsOf(
  deps: MoneyDeps,
  caller: PromoCaller,
  q: { operatorId?: string | undefined; kind?: PromoKind | undefined; status?: PromoStatus | undefined; limit: number },
) {
  let operatorId = q.operatorId;
  if (caller.kind === 'operator') {
    if (operatorId) checkPromoScope(caller, operatorId);
    operatorId = caller.operatorId;
  }
  const operatorIds = caller.kind === 'staff' && !operatorId ? caller.operatorIds : null;
  if (operatorIds && operatorIds.length === 0) return { promotions: [] };
  return { promotions: (await listPromotions(deps.db, { operatorId, operatorIds, kind: q.kind, status: q.status, limit: q.limit })).map(promotionView) };
}

export async function promotionOf(deps: Pick<MoneyDeps, 'db'>, caller: PromoCaller, promoId: string): Promise<Promotion> {
  const p = await getPromotion(deps.db, promoId);
  if (!p) throw new AppError('NOT_FOUND', 'no such promotion');
  checkPromoScope(caller, p.operatorId);
  return p;
}

/** One promotion with its awards so far (and a drop's number of drawn bets). */
export async function promotionDetail(deps: MoneyDeps, caller: PromoCaller, promoId: string) {
  const p = await promotionOf(deps, caller, promoId);
  const awards = await awardsOf(deps.db, promoId);
  return {
    ...promotionView(p),
    awards: awards.map(awardView),
    ...(p.kind === 'prize_drop' ? { entries: await entryCount(deps.db, promoId) } : {}),
  };
}

export async function promotionAwards(deps: MoneyDeps, caller: PromoCaller, promoId: string) {
  const p = await promotionOf(deps, caller, promoId);
  return { promoId: p.promoId, kind: p.kind, currency: p.currency, awards: (await awardsOf(deps.db, promoId)).map(awardView) };
}

/**
 * Cancels a promotion: from now on no prize of it is awarded (a tournament's standings are never
 * fixed, a drop draws no more bets). Prizes already awarded (a drop's) are owed and paid.
 */
export async function cancelPromotionOf(deps: MoneyDeps, caller: PromoCaller, actor: Actor, promoId: string) {
  const p = await promotionOf(deps, caller, promoId);
  if (p.status === 'cancelled') return promotionView(p);
  if (p.status === 'ended' || p.finalizedAt) throw new AppError('ACTION_NOT_AVAILABLE', 'the promotion has ended: its prizes are awarded');
  const operator = await deps.operators.get(deps.db, p.operatorId);
  await deps.db.transaction(async (tx) => {
    // the draw and the finalization lock the row too: a cancel waits for one in progress
    await tx.raw('SELECT 1 FROM promotions WHERE promo_id = ? FOR UPDATE', [promoId]);
    if (!(await cancelPromotion(tx, promoId))) throw new AppError('ACTION_NOT_AVAILABLE', 'the promotion has ended: its prizes are awarded');
    const after = await getPromotion(tx, promoId);
    await recordChange(tx, actor, {
      action: 'promotion.cancelled',
      tenantId: operator?.tenantId ?? null,
      operatorId: p.operatorId,
      targetType: 'promotion',
      targetId: promoId,
      before: promotionView(p),
      after: promotionView(after!),
    });
  });
  return promotionView((await getPromotion(deps.db, promoId))!);
}
