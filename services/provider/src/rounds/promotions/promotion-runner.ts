/**
 * The promotions pass (issue 30): every pod runs it every PROMOTION_TICK_MS (off under
 * NODE_ENV=test unless PROMOTIONS=on; tests call `tick()`). One pass:
 *
 *  1. prize drops running (or ended less than a grace ago and not finalized): the qualifying bets
 *     whose outcome became final since the last draw are numbered (seq), ticketed and drawn under
 *     the committed seed; entries and the awards they won are committed in ONE transaction with
 *     the promotion's row locked (one pod draws a drop at a time, a cancel waits for it). After
 *     the end + PROMOTION_GRACE_S the last draw finalizes the drop and its seed is revealed;
 *  2. tournaments ended PROMOTION_GRACE_S ago: the final standings are computed and the awards of
 *     the prize ranks written, with the tournament marked finalized, in ONE transaction (a second
 *     pod finds it finalized and writes nothing; a cancelled one is never finalized);
 *  3. the awards' promo credits that are due are sent (money-path/promo-credits.ts): first try at
 *     once, then retried with backoff until the casino confirms.
 *
 * Because the award rows are committed before any credit is attempted, a process killed at any
 * point pays each prize exactly once: the next pass (of any pod) sends what is still pending,
 * with the same key and body.
 */
import { drawPrizeDrop, dropTicket } from '@gp/game-core/fairness';
import type { Knex } from 'knex';
import type { MoneyDeps } from '../money-path/callbacks.js';
import { newAward, payDueAwards, recordAwards, type PromoPayItem } from '../money-path/promo-credits.js';
import { tournamentStandings, undrawnDropBets } from '../round-store/promo-reads.js';
import { awardsOf } from './award-store.js';
import { scoreJson } from './leaderboard.js';
import { insertEntries, lastEntrySeq, lockPromotion, markFinalized, promotionsDue, setDrawnUntil, type Promotion } from './promotion-store.js';

/** Rounds started up to this long before the last draw are looked at again (late commits, rounds that took a while). */
const LOOK_BACK_MS = 120_000;
const DRAW_BATCH = 5000;

const ruleOf = (p: Promotion) => ({
  promoId: p.promoId,
  operatorId: p.operatorId,
  games: p.games,
  minBet: p.minBet,
  startsAt: p.startsAt,
  endsAt: p.endsAt,
  allPlayers: p.allPlayers,
});

async function dbNow(db: Knex | Knex.Transaction): Promise<Date> {
  const r = await db.raw('SELECT now() AS now');
  return new Date((r.rows as { now: Date | string }[])[0]!.now);
}

/** Fixes a tournament's final standings and writes the awards of its prize ranks (once). Answers how many awards it wrote. */
export async function finalizeTournament(deps: MoneyDeps, promoId: string): Promise<number> {
  return (deps.db as Knex).transaction(async (tx) => {
    const p = await lockPromotion(tx, promoId);
    if (!p || p.kind !== 'tournament' || p.cancelledAt || p.finalizedAt || p.status !== 'ended') return 0;
    const standings = await tournamentStandings(tx, ruleOf(p), p.scoring!);
    const awards = standings
      .filter((s) => s.rank <= p.prizes.length)
      .map((s) =>
        newAward(deps, {
          promoId,
          kind: 'tournament',
          prize: s.rank,
          operatorId: p.operatorId,
          playerRef: s.playerRef,
          amount: p.prizes[s.rank - 1]!,
          currency: p.currency,
          score: scoreJson(p, s.score).toString(),
        }),
      );
    await recordAwards(tx, awards);
    if (!(await markFinalized(tx, promoId))) throw new Error(`tournament ${promoId} changed under its lock`);
    return awards.length;
  });
}

/** Draws a drop's new qualifying bets; the last draw after the end (+ grace) finalizes it. Answers the awards it wrote. */
export async function drawDrop(deps: MoneyDeps, promoId: string, graceSeconds: number): Promise<number> {
  return (deps.db as Knex).transaction(async (tx) => {
    const p = await lockPromotion(tx, promoId);
    if (!p || p.kind !== 'prize_drop' || p.cancelledAt || p.finalizedAt || p.status === 'scheduled') return 0;
    const now = await dbNow(tx);
    const lastSweep = now.getTime() >= new Date(p.endsAt).getTime() + graceSeconds * 1000;
    // the last draw sweeps the whole window: a long Mines or Blackjack round is drawn before the seed is revealed
    const since = p.drawnUntil && !lastSweep ? new Date(new Date(p.drawnUntil).getTime() - LOOK_BACK_MS) : new Date(p.startsAt);
    const bets = await undrawnDropBets(tx, ruleOf(p), since.toISOString(), DRAW_BATCH);
    const last = await lastEntrySeq(tx, promoId);
    const entries = bets.map((b, i) => ({ seq: last + i + 1, roundId: b.roundId, ticket: dropTicket(b.roundId), playerRef: b.playerRef }));
    const before = (await awardsOf(tx, promoId)).length;
    const won = drawPrizeDrop({
      serverSeed: deps.box.open(p.serverSeedEnc!),
      oneIn: p.oneIn!,
      prizeCount: p.prizes.length,
      entries,
      prizesAwardedBefore: before,
    });
    await insertEntries(tx, promoId, entries);
    const bySeq = new Map(entries.map((e) => [e.seq, e]));
    await recordAwards(
      tx,
      won.map((w) => {
        const e = bySeq.get(w.seq)!;
        return newAward(deps, {
          promoId,
          kind: 'prize_drop',
          prize: w.prize,
          operatorId: p.operatorId,
          playerRef: e.playerRef,
          amount: p.prizes[w.prize]!,
          currency: p.currency,
          roundId: e.roundId,
          seq: e.seq,
        });
      }),
    );
    const over = lastSweep && bets.length < DRAW_BATCH;
    await setDrawnUntil(tx, promoId, now, over);
    return won.length;
  });
}

export interface PromotionPass {
  drawn: number;
  finalized: number;
  paid: PromoPayItem[];
}

/** One pass: drops drawn, tournaments finalized, due promo credits sent. */
export async function runPromotionPass(deps: MoneyDeps, graceSeconds: number, payLimit = 100): Promise<PromotionPass> {
  const out: PromotionPass = { drawn: 0, finalized: 0, paid: [] };
  for (const due of await promotionsDue(deps.db, graceSeconds)) {
    if (due.kind === 'prize_drop') out.drawn += await drawDrop(deps, due.promoId, graceSeconds);
    else {
      await finalizeTournament(deps, due.promoId);
      out.finalized += 1;
    }
  }
  out.paid = await payDueAwards(deps, { limit: payLimit });
  return out;
}

export interface PromotionRunner {
  start(): void;
  stop(): Promise<void>;
  tick(): Promise<PromotionPass>;
}

export function createPromotionRunner(deps: MoneyDeps, log?: (msg: string, err: unknown) => void): PromotionRunner {
  const cfg = deps.config.promotions;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<PromotionPass> | null = null;
  let stopped = true;
  const tick = () => {
    if (!running) running = runPromotionPass(deps, cfg.graceSeconds).finally(() => (running = null));
    return running;
  };
  const loop = () => {
    if (stopped) return;
    tick().catch((err: unknown) => log?.('promotions: a pass failed', err));
    timer = setTimeout(loop, cfg.tickMs);
    timer.unref();
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(loop, cfg.tickMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
    tick,
  };
}
