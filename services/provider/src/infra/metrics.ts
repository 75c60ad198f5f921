/**
 * Prometheus metrics (prom-client), served on their own listener (METRICS_PORT, metrics-server.ts).
 * Names and labels are the ones the chart's PrometheusRule and docs/operations.md use:
 *
 *   gp_http_request_duration_seconds{method,route,status}   route = the matched route pattern
 *   gp_wallet_callbacks_total{operator,operation,outcome}     one per wallet call (its one retry included)
 *   gp_wallet_callback_duration_seconds{operator,operation}
 *   gp_wallet_retries_pending{operator,operation}             credit_pending / rollback_pending rounds (database)
 *   gp_wallet_circuit_open{operator}                          this pod's circuit (1 open)
 *   gp_ready                                                  what /ready answers (1 ready)
 *   gp_db_pool_connections{state}                             used, free, pending (waiting for a connection)
 *   gp_db_hot_statements_total, gp_db_hot_batches_total       the money path's one-statement steps sent, and the transactions they went in
 *   gp_db_hot_statements_resent_total, gp_db_hot_statements_waiting   sent again alone after a refusal in their batch; waiting now
 *   gp_lock_wait_seconds                                      waits for a round lock (Redis or in-process)
 *   gp_rounds_total{game,status}                              rounds that reached a final status (this pod)
 *   gp_rounds_open{game,status}                               rounds not final (database, the whole install)
 *   gp_bets_total{game,currency}                              bets closed with their credit confirmed
 *   gp_bet_stake_minor_units_total{game,currency}             their stakes, in the currency's minor units
 *   gp_bet_payout_minor_units_total{game,currency}            their payouts, in minor units
 *   gp_free_bets_total{game,currency}                         free bets (issue 17) closed with their credit confirmed: no stake
 *   gp_free_bet_payout_minor_units_total{game,currency}       their payouts (paid by the operator's campaign), in minor units
 *   gp_idempotent_replays_total{outcome}                      duplicates answered by replay, conflicts, still in progress
 *   gp_wallet_refusals_total{operator,operation,code}         the casino's refusals (4xx, 409) by its code (issue 28)
 *   gp_wallet_retries_oldest_pending_seconds{operator,operation}  age of the oldest pending credit / rollback (database)
 *   gp_wallet_retry_runs_total{operator,trigger}              retry passes: cron (the CronJob route), session (a new session)
 *   gp_wallet_retry_rounds_total{operator,result}             their rounds: claimed, settled, failed (still pending after the pass)
 *   gp_promo_credits{operator,state}                          promotions' prizes awarded (issue 30), by credit state: credited, pending (database)
 *   gp_build_info{version,commit,node_version}                1, naming the build
 *   gp_nodejs_heap_allocated_bytes_total                      bytes V8 allocated since the process started (where the runtime reports it)
 *   gp_nodejs_*, gp_process_*                                 prom-client's default metrics (event-loop lag, CPU, memory, GC)
 *
 * Series present before their first event: every operator profile's wallet-call, retry and
 * pending series, the replays and the final round statuses start at 0, so rates and alerts work
 * from the first scrape.
 *
 * No label carries a player, round or session id. The hot path only bumps cached children
 * (one string key and a Map lookup per observation); everything read from the database or the
 * pools is read when Prometheus scrapes.
 */
import { GAME_TYPES } from '@gp/game-core';
import client from 'prom-client';
import { BUILD } from './build-info.js';
import { type DatabaseFigures, registerDatabaseMetrics } from './db-metrics.js';
import { registerHeapAllocated } from './heap-allocated.js';

const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = client;

export interface OpenRoundsRow {
  operatorId: string;
  gameType: string;
  status: string;
  count: number;
}

/** What the scrape reads: wired by the composition root (services.ts). */
export interface MetricsSources extends DatabaseFigures {
  openRounds(): Promise<OpenRoundsRow[]>;
  circuits(): Iterable<{ operatorId: string; open: boolean }>;
  ready(): Promise<boolean>;
  /** Every operator profile, so that its series exist (at 0) before its first event. */
  operatorIds?(): Promise<string[]>;
  /** The age of the oldest pending credit / rollback per operator (rounds/pending-age.ts). */
  oldestPending?(): Promise<{ operatorId: string; operation: string; seconds: number }[]>;
  /** Promo credits (promotions' prizes) per operator and state (rounds/promotions/award-store.ts). */
  promoCredits?(): Promise<{ operatorId: string; state: 'credited' | 'pending'; count: number }[]>;
}

/** One retry pass (rounds/wallet-retry-job.ts summary): rounds claimed, settled, still pending. */
export interface RetryRunCounts {
  claimed: number;
  settled: number;
  failed: number;
}

/** A round as the metrics see it when it reaches a status. */
export interface RoundFigures {
  gameType: string;
  currency: string;
  status: string;
  totalStaked: bigint;
  payout: bigint | null;
  /** a free bet: no stake was debited, the payout is the campaign's */
  freeBetCampaignId?: string | null;
}

export type ReplayOutcome = 'replayed' | 'conflict' | 'in_progress';

export interface Metrics {
  readonly registry: client.Registry;
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** `refusalCode`: the casino's code of a refusal (4xx, 409); '' when it sent none; absent otherwise. */
  walletCall(operatorId: string, operation: string, outcome: string, seconds: number, refusalCode?: string | null): void;
  retryRun(operatorId: string, trigger: 'cron' | 'session' | 'admin' | 'scheduler', counts: RetryRunCounts): void;
  roundReached(round: RoundFigures): void;
  idempotentReplay(outcome: ReplayOutcome): void;
  lockWait(seconds: number): void;
  setSources(sources: MetricsSources): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

const FINAL = new Set(['settled', 'cashed_out', 'busted', 'cancelled', 'error']);
const PAID = new Set(['settled', 'cashed_out', 'busted']);
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const WALLET_OPERATIONS = ['validate-session', 'balance', 'debit', 'credit', 'rollback'];
const WALLET_OUTCOMES = ['confirmed', 'refused', 'conflict', 'timeout', 'network_error', 'retryable_status', 'bad_answer'];
const RETRY_RESULTS = ['claimed', 'settled', 'failed'] as const;
/** A casino's refusal code as a label: its own word, or `other` past 50 codes of one operator or when it is no code at all. */
const CODE_LABEL = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const MAX_CODES_PER_OPERATOR = 50;

/** Caches label children by a key string, so an observation allocates no label object. */
function childCache<C>(make: (...values: string[]) => C) {
  const cache = new Map<string, C>();
  return (key: string, ...values: string[]): C => {
    let c = cache.get(key);
    if (c === undefined) {
      c = make(...values);
      cache.set(key, c);
    }
    return c;
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gp_' });
  registerHeapAllocated(registry);
  let sources: MetricsSources | null = null;
  const registers = [registry];

  // The operator profiles (read at scrape, one query shared by the series of one scrape): each
  // profile's series are created at 0 the first time it is seen.
  let operatorList: string[] = [];
  const primed = new Set<string>();
  let priming: Promise<void> | null = null;
  const primeOperators = (): Promise<void> => {
    if (!sources?.operatorIds) return Promise.resolve();
    priming ??= sources
      .operatorIds()
      .then((ids) => {
        operatorList = ids;
        for (const op of ids) {
          if (primed.has(op)) continue;
          primed.add(op);
          for (const operation of WALLET_OPERATIONS) for (const outcome of WALLET_OUTCOMES) walletCalls.inc({ operator: op, operation, outcome }, 0);
          retryRuns.inc({ operator: op, trigger: 'cron' }, 0);
          for (const result of RETRY_RESULTS) retryRounds.inc({ operator: op, result }, 0);
        }
      })
      .catch(() => undefined)
      .finally(() => setImmediate(() => (priming = null)));
    return priming;
  };

  new Gauge({
    name: 'gp_build_info',
    help: "The build this process runs: 1, labelled with the provider's version, the commit (GP_BUILD_COMMIT, else unknown) and Node's version",
    labelNames: ['version', 'commit', 'node_version'],
    registers,
  }).set({ version: BUILD.version, commit: BUILD.commit, node_version: BUILD.node }, 1);

  const httpDuration = new Histogram({
    name: 'gp_http_request_duration_seconds',
    help: 'HTTP requests by method, matched route pattern and status, in seconds',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const walletCalls = new Counter({
    name: 'gp_wallet_callbacks_total',
    help: 'Wallet callbacks (one retry included) by operator, operation and outcome: confirmed, refused, conflict, timeout, network_error, retryable_status, bad_answer',
    labelNames: ['operator', 'operation', 'outcome'],
    registers,
    collect: primeOperators,
  });
  const refusals = new Counter({
    name: 'gp_wallet_refusals_total',
    help: "The casinos' refusals (a 4xx answer, 409 included) by operator, operation and the casino's code (none: no code sent; other: not a code, or past 50 codes of one operator)",
    labelNames: ['operator', 'operation', 'code'],
    registers,
  });
  const retryRuns = new Counter({
    name: 'gp_wallet_retry_runs_total',
    help: "Retry passes by operator and trigger: scheduler (the pods' own retry scheduler, one operator worker pass), cron (the wallet-retries CronJob), session (a new session of the player), admin (retry now)",
    labelNames: ['operator', 'trigger'],
    registers,
    collect: primeOperators,
  });
  const retryRounds = new Counter({
    name: 'gp_wallet_retry_rounds_total',
    help: 'Rounds of the retry passes by result: claimed (taken by a pass), settled (credit or rollback confirmed), failed (still pending after the pass)',
    labelNames: ['operator', 'result'],
    registers,
    collect: primeOperators,
  });
  const walletDuration = new Histogram({
    name: 'gp_wallet_callback_duration_seconds',
    help: 'Wallet callbacks by operator and operation (its one retry included), in seconds',
    labelNames: ['operator', 'operation'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const lockWait = new Histogram({
    name: 'gp_lock_wait_seconds',
    help: 'Time a request waited for a round lock, in seconds',
    buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const roundsFinal = new Counter({
    name: 'gp_rounds_total',
    help: 'Rounds that reached a final status in this process, by game and status',
    labelNames: ['game', 'status'],
    registers,
  });
  const bets = new Counter({
    name: 'gp_bets_total',
    help: 'Bets whose round closed with its credit confirmed, by game and currency',
    labelNames: ['game', 'currency'],
    registers,
  });
  const stakes = new Counter({
    name: 'gp_bet_stake_minor_units_total',
    help: "Stakes of those bets (every debit of the round), in the currency's minor units (cents for USD, satoshi for BTC)",
    labelNames: ['game', 'currency'],
    registers,
  });
  const payouts = new Counter({
    name: 'gp_bet_payout_minor_units_total',
    help: "Payouts of those bets, in the currency's minor units",
    labelNames: ['game', 'currency'],
    registers,
  });
  const freeBets = new Counter({
    name: 'gp_free_bets_total',
    help: 'Free bets (no debit) whose round closed with its credit confirmed, by game and currency',
    labelNames: ['game', 'currency'],
    registers,
  });
  const freePayouts = new Counter({
    name: 'gp_free_bet_payout_minor_units_total',
    help: "Payouts of free bets, in the currency's minor units (apart from gp_bet_payout_minor_units_total)",
    labelNames: ['game', 'currency'],
    registers,
  });
  const replays = new Counter({
    name: 'gp_idempotent_replays_total',
    help: 'Requests whose idempotency key was already used: answered by replay, refused as a conflict, or still in progress',
    labelNames: ['outcome'],
    registers,
  });
  // Present at 0 from the start: the labels that do not depend on an operator.
  for (const outcome of ['replayed', 'conflict', 'in_progress']) replays.inc({ outcome }, 0);
  for (const game of GAME_TYPES) for (const status of FINAL) roundsFinal.inc({ game, status }, 0);

  // Read at scrape time; the gauges of one scrape (and scrapes at the same time) share one query.
  let inFlight: Promise<OpenRoundsRow[]> | null = null;
  const openRounds = () => {
    if (!sources) return Promise.resolve([] as OpenRoundsRow[]);
    inFlight ??= sources
      .openRounds()
      .catch(() => [] as OpenRoundsRow[])
      .finally(() => setImmediate(() => (inFlight = null)));
    return inFlight;
  };
  const pendingSeen = new Set<string>();
  new Gauge({
    name: 'gp_wallet_retries_pending',
    help: 'Rounds waiting for the retry job, by operator and operation: credit (credit_pending) or rollback (rollback_pending); the whole install',
    labelNames: ['operator', 'operation'],
    registers,
    async collect() {
      const [rows] = await Promise.all([openRounds(), primeOperators()]);
      for (const op of operatorList) for (const operation of ['credit', 'rollback']) pendingSeen.add(`${op}\u0000${operation}`);
      const counts = new Map<string, number>();
      for (const r of rows) {
        const operation = r.status === 'credit_pending' ? 'credit' : r.status === 'rollback_pending' ? 'rollback' : null;
        if (!operation) continue;
        const key = `${r.operatorId}\u0000${operation}`;
        counts.set(key, (counts.get(key) ?? 0) + r.count);
        pendingSeen.add(key);
      }
      this.reset();
      for (const key of pendingSeen) {
        const [operator, operation] = key.split('\u0000') as [string, string];
        this.set({ operator, operation }, counts.get(key) ?? 0);
      }
    },
  });
  new Gauge({
    name: 'gp_wallet_retries_oldest_pending_seconds',
    help: 'Age in seconds of the oldest round waiting for its credit (credit_pending) or rollback (rollback_pending), by operator and operation, since the callback was first sent; 0 when none waits; the whole install',
    labelNames: ['operator', 'operation'],
    registers,
    async collect() {
      const [rows] = await Promise.all([sources?.oldestPending ? sources.oldestPending().catch(() => []) : Promise.resolve([]), primeOperators()]);
      this.reset();
      for (const op of operatorList) for (const operation of ['credit', 'rollback']) this.set({ operator: op, operation }, 0);
      for (const r of rows) this.set({ operator: r.operatorId, operation: r.operation }, Math.round(r.seconds));
    },
  });
  new Gauge({
    name: 'gp_promo_credits',
    help: "Promotions' prizes awarded (issue 30), by operator and the state of their promo credit: credited (the casino confirmed it), pending (retried until it does); the whole install. Their sum is the awards made",
    labelNames: ['operator', 'state'],
    registers,
    async collect() {
      const [rows] = await Promise.all([sources?.promoCredits ? sources.promoCredits().catch(() => []) : Promise.resolve([]), primeOperators()]);
      this.reset();
      for (const op of operatorList) for (const state of ['credited', 'pending']) this.set({ operator: op, state }, 0);
      for (const r of rows) this.set({ operator: r.operatorId, state: r.state }, r.count);
    },
  });
  new Gauge({
    name: 'gp_rounds_open',
    help: 'Rounds not final, by game and status (active, debit_requested, credit_pending, rollback_pending); the whole install',
    labelNames: ['game', 'status'],
    registers,
    async collect() {
      const rows = await openRounds();
      this.reset();
      const sums = new Map<string, number>();
      for (const r of rows) sums.set(`${r.gameType}\u0000${r.status}`, (sums.get(`${r.gameType}\u0000${r.status}`) ?? 0) + r.count);
      for (const [key, n] of sums) {
        const [game, status] = key.split('\u0000') as [string, string];
        this.set({ game, status }, n);
      }
    },
  });
  new Gauge({
    name: 'gp_wallet_circuit_open',
    help: "This process's wallet circuit per operator: 1 open (new rounds and sessions refused; credits and rollbacks still sent), 0 closed",
    labelNames: ['operator'],
    registers,
    collect() {
      this.reset();
      if (!sources) return;
      for (const c of sources.circuits()) this.set({ operator: c.operatorId }, c.open ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gp_ready',
    help: 'What /ready answers: 1 ready, 0 not (database, Redis, the readiness operator, or shutting down)',
    registers,
    async collect() {
      this.set(sources ? ((await sources.ready().catch(() => false)) ? 1 : 0) : 0);
    },
  });
  registerDatabaseMetrics(registers, () => sources);

  const httpChild = childCache((method, route, status) => httpDuration.labels(method!, route!, status!));
  const callChild = childCache((operator, operation, outcome) => walletCalls.labels(operator!, operation!, outcome!));
  const callDurationChild = childCache((operator, operation) => walletDuration.labels(operator!, operation!));
  const finalChild = childCache((game, status) => roundsFinal.labels(game!, status!));
  const moneyChild = childCache((game, currency) => ({
    bets: bets.labels(game!, currency!),
    stakes: stakes.labels(game!, currency!),
    payouts: payouts.labels(game!, currency!),
  }));
  const freeChild = childCache((game, currency) => ({ bets: freeBets.labels(game!, currency!), payouts: freePayouts.labels(game!, currency!) }));
  const replayChild = childCache((outcome) => replays.labels(outcome!));
  const refusalChild = childCache((operator, operation, code) => refusals.labels(operator!, operation!, code!));
  const codesSeen = new Map<string, Set<string>>();
  const codeLabel = (operatorId: string, code: string): string => {
    if (code === '') return 'none';
    if (!CODE_LABEL.test(code)) return 'other';
    let seen = codesSeen.get(operatorId);
    if (!seen) codesSeen.set(operatorId, (seen = new Set()));
    if (!seen.has(code)) {
      if (seen.size >= MAX_CODES_PER_OPERATOR) return 'other';
      seen.add(code);
    }
    return code;
  };

  return {
    registry,
    httpRequest(method, route, status, seconds) {
      httpChild(`${method} ${status} ${route}`, method, route, String(status)).observe(seconds);
    },
    walletCall(operatorId, operation, outcome, seconds, refusalCode) {
      const k = `${operatorId}\u0000${operation}`;
      callChild(`${k}\u0000${outcome}`, operatorId, operation, outcome).inc();
      callDurationChild(k, operatorId, operation).observe(seconds);
      if (refusalCode !== undefined && refusalCode !== null) {
        const code = codeLabel(operatorId, refusalCode);
        refusalChild(`${k}\u0000${code}`, operatorId, operation, code).inc();
      }
    },
    retryRun(operatorId, trigger, counts) {
      retryRuns.inc({ operator: operatorId, trigger });
      for (const result of RETRY_RESULTS) if (counts[result] > 0) retryRounds.inc({ operator: operatorId, result }, counts[result]);
    },
    roundReached(round) {
      if (!FINAL.has(round.status)) return;
      finalChild(`${round.gameType} ${round.status}`, round.gameType, round.status).inc();
      if (!PAID.has(round.status)) return;
      if (round.freeBetCampaignId) {
        const f = freeChild(`${round.gameType} ${round.currency}`, round.gameType, round.currency);
        f.bets.inc();
        if (round.payout !== null && round.payout > 0n) f.payouts.inc(Number(round.payout));
        return;
      }
      const m = moneyChild(`${round.gameType} ${round.currency}`, round.gameType, round.currency);
      m.bets.inc();
      // Exact while a series stays under 2^53 minor units (9e15: 90 million BTC in satoshi).
      m.stakes.inc(Number(round.totalStaked));
      if (round.payout !== null && round.payout > 0n) m.payouts.inc(Number(round.payout));
    },
    idempotentReplay(outcome) {
      replayChild(outcome, outcome).inc();
    },
    lockWait(seconds) {
      lockWait.observe(seconds);
    },
    setSources(s) {
      sources = s;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** The `outcome` label of a wallet call from its classification (wallet-client.ts). */
export function walletOutcomeLabel(kind: string, errorCode: string | null): string {
  if (kind !== 'ambiguous') return kind;
  switch (errorCode) {
    case 'CASINO_TIMEOUT':
      return 'timeout';
    case 'CASINO_NETWORK_ERROR':
      return 'network_error';
    case 'CASINO_HTTP_RETRYABLE':
      return 'retryable_status';
    default:
      return 'bad_answer';
  }
}
