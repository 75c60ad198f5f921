/**
 * Promo credits (issue 30, docs/promotions.md "The credits you receive"): a promotion's prize is
 * one `/wallet/credit` with no debit and no round, marked `promo: true` with the promotion's id,
 * its kind and the prize (a tournament's rank, a drop's prize index), idempotency key
 * `<promoId>:prize:<rank or index>`.
 *
 * The guarantees of the money path hold:
 *  - recorded before sent: the award row (promotion_awards, with the exact body sealed) is
 *    committed by the tournament's finalization or the drop's draw BEFORE any attempt; a process
 *    killed between the commit and the call leaves a pending award that the next pass sends;
 *  - retried until the casino confirms: a pending award is claimed (FOR UPDATE SKIP LOCKED and a
 *    lease: one pod at a time) and sent again with the same key and the same body bytes, after a
 *    backoff (WALLET_RETRY_BACKOFF_S);
 *  - never paid twice: one row per prize (UNIQUE (promo_id, prize)), one key per row, and the
 *    casino replays a repeated key (SPEC.md wallet rule 5);
 *  - audited: every attempt's status code, answer and the casino's transaction id are stored on
 *    the award (the console's awards page shows them; secrets are never in the body).
 */
import { amountJson, type CurrencyCode } from '@gp/game-core/money';
import { stringifyJson } from '../../infra/json.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import { claimDueAward, insertAwards, recordAwardResult, releaseAward, type Award, type NewAward } from '../promotions/award-store.js';
import type { PromoKind } from '../promotions/promotion-store.js';
import { attempt, leaseUntil, operatorFor, type MoneyDeps } from './callbacks.js';

export const promoCreditKey = (promoId: string, prize: number) => `${promoId}:prize:${prize}`;

export interface PrizeWon {
  promoId: string;
  kind: PromoKind;
  prize: number;
  operatorId: string;
  playerRef: string;
  amount: bigint;
  currency: CurrencyCode;
  /** a tournament's final score (exact text) */
  score?: string | null;
  /** a drop: the winning bet and its entry */
  roundId?: string | null;
  seq?: number | null;
}

/** The body of a promo credit: the wallet credit's money fields, no launch token, no round, plus the promotion. */
export function promoCreditBody(w: PrizeWon) {
  return {
    operatorId: w.operatorId,
    playerRef: w.playerRef,
    amount: amountJson(w.amount, w.currency),
    currency: w.currency,
    promo: true as const,
    promoId: w.promoId,
    promoType: w.kind,
    prize: w.prize,
    ...(w.roundId ? { sourceRoundId: w.roundId } : {}),
  };
}

/** The award row of a prize, its credit recorded (sealed body) and not yet sent. */
export function newAward(deps: Pick<MoneyDeps, 'box'>, w: PrizeWon): NewAward {
  const body = stringifyJson(promoCreditBody(w));
  return {
    promoId: w.promoId,
    prize: w.prize,
    operatorId: w.operatorId,
    playerRef: w.playerRef,
    amount: w.amount,
    currency: w.currency,
    score: w.score ?? null,
    roundId: w.roundId ?? null,
    seq: w.seq ?? null,
    idempotencyKey: promoCreditKey(w.promoId, w.prize),
    path: '/wallet/credit',
    requestBody: body,
    requestBodyEnc: deps.box.seal(body),
  };
}

/** Records the awards (in the caller's transaction: committed with the standings or the draw that made them). */
export { insertAwards as recordAwards };

/** Sends one claimed award's credit (again) with its key and body bytes, and stores what came back. */
export async function sendPromoCredit(deps: MoneyDeps, operator: OperatorWithSecret, award: Award): Promise<'succeeded' | 'pending'> {
  if (award.callbackStatus === 'succeeded') return 'succeeded';
  const a = await attempt(deps, operator, { ...award, operation: 'credit' });
  const status = a.status === 'succeeded' ? 'succeeded' : 'pending';
  await recordAwardResult(deps.db, award.id, { ...a.result, status }, deps.config.walletRetryScheduler.backoffSeconds);
  return status;
}

export interface PromoPayItem {
  promoId: string;
  prize: number;
  idempotencyKey: string;
  outcome: 'succeeded' | 'pending';
}

/**
 * Pays the awards that are due: each claimed (one pod), sent, its result stored. Stops for an
 * operator at its first unconfirmed credit or open wallet circuit (not hammering a casino that
 * does not answer); the award waits for its next retry time.
 */
export async function payDueAwards(
  deps: MoneyDeps,
  opts: { operatorId?: string | undefined; awardId?: string | undefined; limit: number; ignoreBackoff?: boolean },
): Promise<PromoPayItem[]> {
  const items: PromoPayItem[] = [];
  const stalled = new Set<string>();
  for (let i = 0; i < opts.limit; i++) {
    const award = await claimDueAward(deps.db, leaseUntil(deps.config), {
      operatorId: opts.operatorId,
      awardId: opts.awardId,
      notOperators: [...stalled],
      ignoreBackoff: opts.ignoreBackoff,
    });
    if (!award) break;
    if (deps.wallet.circuitOpen(award.operatorId)) {
      stalled.add(award.operatorId);
      await releaseAward(deps.db, award.id);
      continue;
    }
    const operator = await operatorFor(deps, award.operatorId);
    const outcome = await sendPromoCredit(deps, operator, award);
    if (outcome !== 'succeeded') stalled.add(award.operatorId);
    items.push({ promoId: award.promoId, prize: award.prize, idempotencyKey: award.idempotencyKey, outcome });
  }
  return items;
}
