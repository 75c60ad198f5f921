/**
 * The in-service wallet retry scheduler (issue 26; docs/operations.md "Wallet retries"): every
 * pod retries pending credits and rollbacks by itself, within seconds, without a CronJob.
 *
 *  - Backoff per round, stored in the round (`retry_attempts`, `next_retry_at`, `last_retry_at`;
 *    migration 20261128100000): the first retry WALLET_RETRY_BACKOFF_S[0] (5 s) after the round
 *    was left pending, then 15 s, 1 min, 5 min, then every 30 min. Every pod reads the same due
 *    time, and a restart does not reset it.
 *  - Claimed like the cron route's pass: one round at a time, `FOR UPDATE SKIP LOCKED` plus the
 *    round's lease, so any number of pods never send one callback at once; the retry reuses the
 *    recorded callback (its idempotency key and body bytes) through the money path's own
 *    sendPendingCredit / sendPendingRollback / rollbackUnansweredDebit.
 *  - Paced per operator: one worker per operator per pod, its rounds one after the other, at most
 *    WALLET_RETRY_PER_OPERATOR per tick, stopping at the first retry the casino did not confirm;
 *    an operator whose wallet circuit is open in this pod is skipped until it half-opens; every
 *    callback still goes through the operator's bulkhead (wallet-client.ts). A slow casino holds
 *    only its own worker.
 *  - Recovery within a probe interval: an operator whose rounds all wait out a long backoff gets
 *    one retry (a probe: the round due soonest) when none of its rounds was tried for
 *    WALLET_RETRY_PROBE_S (30 s); when a round that had already failed a scheduled retry is
 *    confirmed, the operator's other waiting rounds become due at once. So a win settles within
 *    about a probe interval of the casino coming back, however long it was down.
 *  - Enabled profiles only (a disabled profile's rounds wait for the cron route or a console
 *    "retry now"). Rounds of a debit whose worker died (`debit_requested` past its lease) are
 *    rolled back the same way. Every WALLET_RETRY_SWEEP_S the pod also runs the cron pass's
 *    other steps (interrupted Blackjack extra debits, abandoned rounds, idempotency retention, and
 *    the staff's old sign-in attempts: staff/staff-store.ts purgeOldSignInAttempts).
 */
import type { Knex } from 'knex';
import { leaseUntil } from './money-path/callbacks.js';
import type { RoundDeps } from './round-actions.js';
import { getRound } from './round-store/reads.js';
import { claimDueRound, makeOperatorDue, operatorsWithWork } from './round-store/retry-schedule.js';
import { retryRound, runMaintenancePass, type RetryItem } from './wallet-retry-job.js';
import { purgeOldSignInAttempts } from '../staff/staff-store.js';

export interface RetrySchedule {
  /** Seconds between attempts: [first after the round was left pending, after the 1st, …]; the last repeats. */
  backoffSeconds: number[];
  /** How often a pod looks for due rounds. */
  tickMs: number;
  /** An operator whose rounds all wait gets one retry when none was tried for this long. */
  probeSeconds: number;
  /** Rounds one pod retries for one operator per tick (one after the other). */
  perOperator: number;
  /** The cron pass's other steps (abandoned rounds, interrupted Blackjack debits, retention), this often. */
  sweepSeconds: number;
}

export interface RetryScheduler {
  start(): void;
  /** Stops ticking and waits for the retries in flight. */
  stop(): Promise<void>;
  /** One tick now, awaited (tests, and the loop itself). Answers what it retried. */
  tick(): Promise<RetryItem[]>;
}

export function createRetryScheduler(
  deps: RoundDeps,
  schedule: RetrySchedule,
  log?: (msg: string, err: unknown) => void,
  onPass?: (operatorId: string, items: RetryItem[]) => void,
): RetryScheduler {
  const db = deps.db as Knex;
  const running = new Map<string, Promise<RetryItem[]>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let lastSweep = Date.now();
  let sweeping: Promise<unknown> | null = null;
  const first = schedule.backoffSeconds[0] ?? 5;

  async function work(operatorId: string, due: boolean): Promise<RetryItem[]> {
    const items: RetryItem[] = [];
    for (let i = 0; i < (due ? schedule.perOperator : 1); i++) {
      if (deps.wallet.circuitOpen(operatorId)) break;
      const claimed = await claimDueRound(db, operatorId, !due, leaseUntil(deps.config), schedule.backoffSeconds);
      if (!claimed) break;
      const round = await getRound(deps.db, claimed.roundId);
      if (!round) break;
      const item = await retryRound(deps, round);
      items.push(item);
      if (item.outcome !== 'succeeded') break; // not hammering a casino that does not answer
      if (claimed.attempts >= 2) await makeOperatorDue(db, operatorId);
    }
    return items;
  }

  async function tick(): Promise<RetryItem[]> {
    const ops = await operatorsWithWork(db, first);
    const probeBefore = Date.now() - schedule.probeSeconds * 1000;
    const started: Promise<RetryItem[]>[] = [];
    for (const op of ops) {
      if (running.has(op.operatorId)) continue; // its worker is still busy (a slow casino): it holds only itself
      // nothing due: a probe only for an operator whose rounds were tried before, and not lately
      if (!op.due && (!op.lastTry || op.lastTry.getTime() > probeBefore)) continue;
      const profile = await deps.operators.get(deps.db, op.operatorId);
      if (!profile?.enabled) continue;
      const p = work(op.operatorId, op.due)
        .then((items) => {
          if (items.length) onPass?.(op.operatorId, items);
          return items;
        })
        .catch((err: unknown) => {
          log?.('wallet retry scheduler: an operator pass failed', err);
          return [] as RetryItem[];
        })
        .finally(() => running.delete(op.operatorId));
      running.set(op.operatorId, p);
      started.push(p);
    }
    if (!sweeping && Date.now() - lastSweep >= schedule.sweepSeconds * 1000) {
      lastSweep = Date.now();
      sweeping = sweep().finally(() => (sweeping = null));
    }
    return (await Promise.all(started)).flat();
  }

  async function sweep(): Promise<void> {
    try {
      for (const op of await deps.operators.list(deps.db)) if (op.enabled) await runMaintenancePass(deps, op.operatorId, 100);
      await purgeOldSignInAttempts(deps.db); // not an operator's: once a sweep
    } catch (err) {
      log?.('wallet retry scheduler: the sweep failed', err);
    }
  }

  const loop = () => {
    if (stopped) return;
    // Not awaited: a slow operator's worker does not hold the next tick (it is skipped while busy).
    const p = tick().catch((err: unknown) => log?.('wallet retry scheduler: a tick failed', err));
    timer = setTimeout(loop, schedule.tickMs);
    timer.unref();
    void p;
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(loop, schedule.tickMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await Promise.allSettled([...running.values(), ...(sweeping ? [sweeping] : [])]);
    },
    tick,
  };
}
