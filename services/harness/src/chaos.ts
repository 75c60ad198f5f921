/**
 * `npm run chaos` (issue 16 item 1): many players play all six games against the reference
 * casino over HTTP while
 *   - faults hit every wallet path at random (timeouts past the callback timeout, 5xx, 429,
 *     dropped connections, answers lost after the casino applied the request, late answers,
 *     slow answers, refusals, 409s),
 *   - provider processes (at least two, sharing PostgreSQL and a Redis of our own) are killed
 *     with SIGKILL and restarted, and Redis is restarted,
 *   - players resend requests with the same idempotency key, at once to another process or
 *     after the answer, and every replay must match the original.
 * Then the faults stop, the retry job (GET /api/cron/wallet-retries) runs until nothing is
 * pending, every player rotates its seed pair, and the bank check (bank-check.ts) and the
 * re-verification of every settled round (reverify.ts) must find nothing.
 *
 * `seed` makes the harness's own choices repeat (players' games, amounts, params, tiles,
 * actions, duplicates, which process is killed when, the casino's fault draws); the
 * interleaving of concurrent requests, and so the exact run, cannot repeat.
 */
import { createReadStream, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { signRequest, type FaultAction, type FaultRule } from '@gp/reference-casino';
import { bankCheck, openRounds, playerKey, storedRounds } from './bank-check.js';
import type { CasinoRequest } from './casino.js';
import { request, sameJson, type Answer } from './client.js';
import { runPool } from './pg.js';
import { createPlayer, createPlayers, openSession, type OperatorSpec, type Player } from './players.js';
import { reverifyRounds } from './reverify.js';
import { Counter } from './stats.js';
import { between, finishOpenRounds, playBlackjack, playMines, playSettled, rng, settledParams, type Caller, type Game, type Rng } from './strategies.js';
import { startWorld, type Slot, type World } from './world.js';

export interface ChaosOptions {
  seed: number;
  /** Rounds to play (bets and Mines / Blackjack rounds). */
  bets: number;
  players: number;
  /** Share of wallet requests hit by a fault. */
  faultRate: number;
  kills: number;
  /** Provider processes (≥ 2). */
  processes: number;
  redisRestarts: number;
  /** Start a killed process again (default); false leaves it dead, its players move to the others. */
  restartKilled?: boolean;
  /** CALLBACK_TIMEOUT_MS of the providers (short, so leases and timeouts pass quickly). */
  callbackTimeoutMs: number;
  /** Share of money requests sent twice (half at once to another process, half after the answer). */
  duplicateShare: number;
  slot: Slot;
  logLevel: string;
  print: (line: string) => void;
  logDir?: string;
  /**
   * The providers' in-service wallet retry scheduler does the retries alone (issue 26): no cron
   * call at all, a fast schedule, and the casino refuses a share of credits and rollbacks with a
   * 503 (`retryFaultRate`). The run then checks that no callback was in the casino's hands twice
   * at once (the pods' claims never overlap).
   */
  schedulerOnly?: boolean;
  retryFaultRate?: number;
}

/** A fast schedule for runs that rely on the scheduler (seconds instead of minutes). */
export const FAST_SCHEDULER_ENV = {
  WALLET_RETRY_SCHEDULER: 'on',
  WALLET_RETRY_BACKOFF_S: '1,1,2',
  WALLET_RETRY_TICK_MS: '200',
  WALLET_RETRY_PROBE_S: '2',
  WALLET_RETRY_SWEEP_S: '5',
};

/**
 * Callbacks that were in the casino's hands twice at once: two requests with one idempotency key
 * whose [arrival, answer] intervals overlap. Requests hit by a delay fault are left out (the
 * client's one immediate retry after a timeout may legitimately meet its own first attempt).
 */
export function overlappingCallbacks(log: CasinoRequest[]): string[] {
  const byKey = new Map<string, [number, number][]>();
  const delayed = new Set(log.filter((e) => e.fault && /delay|late/.test(e.fault) && e.idempotencyKey).map((e) => e.idempotencyKey!));
  for (const e of log) {
    if (!e.idempotencyKey || delayed.has(e.idempotencyKey) || !e.receivedAt) continue;
    const list = byKey.get(e.idempotencyKey) ?? [];
    list.push([Date.parse(e.receivedAt), Date.parse(e.time)]);
    byKey.set(e.idempotencyKey, list);
  }
  const found: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < list.length; i++)
      if (list[i]![0] < list[i - 1]![1])
        found.push(`${key} was sent twice at once (${new Date(list[i - 1]![0]).toISOString()} and ${new Date(list[i]![0]).toISOString()})`);
  }
  return found;
}

export const CHAOS_DEFAULTS: Omit<ChaosOptions, 'print' | 'slot'> = {
  seed: 1,
  bets: 3000,
  players: 24,
  faultRate: 0.12,
  kills: 5,
  processes: 2,
  redisRestarts: 1,
  callbackTimeoutMs: 300,
  duplicateShare: 0.1,
  logLevel: 'info',
};

export interface ChaosReport {
  seed: number;
  seconds: number;
  rounds: number;
  byStatus: Record<string, number>;
  requests: number;
  answers: Counter;
  walletRequests: number;
  faultedWalletRequests: number;
  /** Fault hits by kind, and by wallet path and kind. */
  faults: Counter;
  faultsByPath: Counter;
  kills: number;
  providerRestarts: number;
  redisRestarts: number;
  cronCalls: number;
  /** Credits and rollbacks the casino refused on purpose (schedulerOnly runs: what the scheduler had to retry). */
  scheduledRetries: number;
  retried: number;
  retriesSucceeded: number;
  duplicates: { concurrent: number; sequential: number; compared: number };
  transportFailures: number;
  /** 500 and 503 answers (retried by the players): not a money discrepancy, but worth a look. */
  serverErrors: number;
  rotations: number;
  newSessions: number;
  verified: number;
  transactions: number;
  /** Signed operator requests sent across two processes (stale, replayed, wrong, incomplete): each refused as it must be. */
  signedChecks: number;
  discrepancies: string[];
  logDir: string;
}

const OPERATORS: OperatorSpec[] = [
  {
    operatorId: 'chaos-usd',
    currency: 'USD',
    decimals: 2,
    secret: 'chaos-usd-secret-0123456789abcdef',
    minBet: '0.10',
    stakeStep: '0.01',
    maxPayout: '1000000',
  },
  {
    operatorId: 'chaos-btc',
    currency: 'BTC',
    decimals: 8,
    secret: 'chaos-btc-secret-0123456789abcdef',
    minBet: '0.00001',
    stakeStep: '0.00000001',
    maxPayout: '100',
  },
];

/* ------------------------------------------------------------------ faults */

/**
 * Fault rules for every wallet path; `rate` is the chance that a request is hit by one of them
 * (the rules fire independently in order, so each gets a share scaled to make the union `rate`).
 */
export function chaosFaults(rate: number, timeoutMs: number): FaultRule[] {
  const past = timeoutMs * 2; // past the callback timeout
  type Kind = { share: number; rule: FaultAction };
  const common: Kind[] = [
    { share: 0.14, rule: { kind: 'delay', ms: past } }, // timeout; the casino applies it after the caller gave up
    { share: 0.14, rule: { kind: 'delay', ms: Math.round(timeoutMs / 3) } }, // slow but in time
    { share: 0.12, rule: { kind: 'status', status: 503 } },
    { share: 0.08, rule: { kind: 'status', status: 429 } },
    { share: 0.1, rule: { kind: 'drop' } },
    { share: 0.06, rule: { kind: 'delay-then-drop', ms: Math.round(timeoutMs / 2) } },
  ];
  const money: Kind[] = [
    ...common,
    { share: 0.12, rule: { kind: 'ambiguous', status: 500 } }, // applied, then failed
    { share: 0.08, rule: { kind: 'ambiguous', mode: 'drop' } }, // applied, then the connection dropped
    { share: 0.06, rule: { kind: 'ambiguous', mode: 'late', ms: past } }, // applied, answered past the timeout
  ];
  const rules: FaultRule[] = [];
  const add = (p: string, kinds: Kind[]) => {
    // rules fire independently, in order: scale the shares so that 1 − Π(1 − p_k) = rate
    const sum = kinds.reduce((a, k) => a + k.share, 0);
    let s = rate;
    for (let i = 0; i < 50; i++) {
      const union = 1 - kinds.reduce((acc, k) => acc * (1 - Math.min(1, (s * k.share) / sum)), 1);
      s *= rate / Math.max(union, 1e-9);
    }
    for (const k of kinds) rules.push({ ...k.rule, path: p, probability: Math.min(1, (s * k.share) / sum) } as FaultRule);
  };
  add('/wallet/validate-session', common);
  add('/wallet/balance', common);
  add('/wallet/debit', [
    ...money,
    { share: 0.05, rule: { kind: 'refuse', code: 'RESPONSIBLE_GAMING_LIMIT' } }, // a clean refusal: the round ends `error`
    { share: 0.05, rule: { kind: 'refuse', status: 409, code: 'IDEMPOTENCY_CONFLICT' } }, // treated as ambiguous: rolled back
  ]);
  for (const p of ['/wallet/credit', '/wallet/rollback']) add(p, [...money, { share: 0.1, rule: { kind: 'refuse', status: 401, code: 'SIGNATURE_INVALID' } }]); // stays pending, retried
  return rules;
}

const faultLabel = (rule: FaultRule, timeoutMs: number): string => {
  switch (rule.kind) {
    case 'delay':
      return rule.ms > timeoutMs ? `timeout (applied after ${rule.ms} ms)` : `slow (${rule.ms} ms)`;
    case 'status':
      return `HTTP ${rule.status}`;
    case 'ambiguous':
      return `applied, then ${rule.mode === 'drop' ? 'dropped' : rule.mode === 'late' ? `answered after ${rule.ms} ms` : `HTTP ${rule.status ?? 500}`}`;
    case 'refuse':
      return `refused ${rule.status ?? 400} ${rule.code}`;
    case 'delay-then-drop':
      return `dropped after ${rule.ms} ms`;
    default:
      return rule.kind;
  }
};

/* ------------------------------------------------------------------ a player's client */

interface Shared {
  world: World;
  opts: ChaosOptions;
  answers: Counter;
  discrepancies: string[];
  secrets: string[];
  keyRounds: Map<string, string>;
  stats: { requests: number; concurrent: number; sequential: number; compared: number; transport: number; serverErrors: number };
}

/** Does `a` replay `b`? A pending answer (credit_pending, rollback_pending) may give way to the round as it is now. */
function sameAnswer(a: Answer, b: Answer): boolean {
  if (a.status === 0 || b.status === 0) return true; // one never arrived
  if (a.body.code === 'IDEMPOTENCY_IN_PROGRESS' || b.body.code === 'IDEMPOTENCY_IN_PROGRESS') return true;
  // refused before any round (circuit open, Redis down): nothing stored, so the other may have made the round
  if (a.status >= 500 && !a.body.roundId) return true;
  if (b.status >= 500 && !b.body.roundId) return true;
  const pending = ['credit_pending', 'rollback_pending'];
  if (pending.includes(String(a.body.roundStatus)) || pending.includes(String(b.body.roundStatus))) return a.body.roundId === b.body.roundId;
  return a.status === b.status && a.text.length > 0 && sameJson(a.body, b.body);
}

/**
 * The client of one player: retries what a real client retries (the process died, the key is
 * still being processed, a 500/503), always with the same idempotency key, on another process.
 */
function playerCaller(sh: Shared, index: number, r: Rng): Caller {
  const origins = () => sh.world.set.origins;
  let turn = index;
  const send = async (method: 'GET' | 'POST', p: string, body: Record<string, unknown> | undefined, start: number): Promise<Answer> => {
    let a: Answer | null = null;
    let inProgress = 0;
    for (let attempt = 0, o = start; attempt < 14; attempt++) {
      a = await request(origins()[o % origins().length]!, method, p, body);
      sh.stats.requests += 1;
      for (const s of sh.secrets) if (a.text.includes(s)) sh.discrepancies.push(`a secret appeared in the answer to ${method} ${p}`);
      if (a.status === 0) {
        sh.stats.transport += 1;
        o += 1;
        await sleep(100 + attempt * 100);
        continue;
      }
      if (a.body.code === 'IDEMPOTENCY_IN_PROGRESS' && ++inProgress <= 1) {
        await sleep(300);
        continue;
      }
      if ((a.status === 500 || a.status === 503) && !a.body.roundId) {
        sh.stats.serverErrors += 1;
        o += 1;
        await sleep(200 + attempt * 100);
        continue;
      }
      break;
    }
    return a!;
  };
  return async (method, p, body) => {
    const key = body && typeof body.idempotencyKey === 'string' ? body.idempotencyKey : null;
    const start = turn++;
    let answer: Answer;
    const dice = key ? r() : 1;
    if (dice < sh.opts.duplicateShare / 2) {
      // the same request twice at once, to two different processes
      sh.stats.concurrent += 1;
      const [a, b] = await Promise.all([send(method, p, body, start), send(method, p, body, start + 1)]);
      compare(a, b, key!);
      answer = a.status === 0 ? b : a;
    } else {
      answer = await send(method, p, body, start);
      if (dice < sh.opts.duplicateShare) {
        sh.stats.sequential += 1;
        const again = await send(method, p, body, start + 1);
        compare(answer, again, key!);
      }
    }
    sh.answers.add(answer.status === 200 ? '200' : `${answer.status} ${answer.body.code ?? answer.error ?? ''}`.trim());
    if (key && typeof answer.body.roundId === 'string' && !p.includes('/rounds/')) {
      // a new round per key, never two
      const before = sh.keyRounds.get(key);
      if (before && before !== answer.body.roundId) sh.discrepancies.push(`idempotency key ${key} answered two rounds: ${before} and ${answer.body.roundId}`);
      sh.keyRounds.set(key, answer.body.roundId);
    }
    return answer;
  };

  function compare(a: Answer, b: Answer, key: string) {
    sh.stats.compared += 1;
    if (!sameAnswer(a, b)) sh.discrepancies.push(`replay of ${key} differs: ${a.status} ${a.text.slice(0, 300)} ≠ ${b.status} ${b.text.slice(0, 300)}`);
  }
}

/* ------------------------------------------------------------------ the run */

function amountFor(p: Player, r: Rng): bigint {
  // USD: 0.10 .. 5.00; BTC: 0.00001 .. 0.0005
  return p.currency === 'USD' ? BigInt(between(r, 10, 500)) : BigInt(between(r, 1000, 50_000));
}

const GAME_WEIGHTS: [Game, number][] = [
  ['dice', 0.2],
  ['limbo', 0.13],
  ['plinko', 0.13],
  ['keno', 0.13],
  ['mines', 0.18],
  ['blackjack', 0.23],
];

function pickGame(r: Rng): Game {
  let x = r();
  for (const [g, w] of GAME_WEIGHTS) if ((x -= w) < 0) return g;
  return 'dice';
}

/**
 * When the kills and Redis restarts happen (as a share of the rounds started) and which process
 * each kill hits: a function of the seed's generator, so `--seed` repeats them.
 */
export function chaosSchedule(master: Rng, kills: number, redisRestarts: number, processes: number) {
  const events: { at: number; kind: 'kill' | 'redis' }[] = [];
  // spread over 10%–75% of the run, so the retries they cause overlap with play
  for (let i = 0; i < kills; i++) events.push({ at: 0.1 + (0.65 * (i + 0.5 + (master() - 0.5) * 0.6)) / kills, kind: 'kill' });
  for (let i = 0; i < redisRestarts; i++) events.push({ at: 0.1 + (0.65 * (i + 0.6)) / redisRestarts, kind: 'redis' });
  events.sort((a, b) => a.at - b.at);
  const killOrder = Array.from({ length: kills }, (_, i) => i % processes).sort(() => master() - 0.5);
  return { events, killOrder };
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const print = opts.print;
  const started = Date.now();
  const master = rng(opts.seed);
  const world = await startWorld({
    slot: opts.slot,
    providers: Math.max(2, opts.processes),
    operators: OPERATORS,
    callbackTimeoutMs: opts.callbackTimeoutMs,
    logLevel: opts.logLevel,
    metrics: false,
    ...(opts.logDir ? { logDir: opts.logDir } : {}),
    ...(opts.schedulerOnly ? { env: FAST_SCHEDULER_ENV } : {}),
  });
  const db = runPool(world.db.url);
  const report: ChaosReport = {
    seed: opts.seed,
    seconds: 0,
    rounds: 0,
    byStatus: {},
    requests: 0,
    answers: new Counter(),
    walletRequests: 0,
    faultedWalletRequests: 0,
    faults: new Counter(),
    faultsByPath: new Counter(),
    kills: 0,
    providerRestarts: 0,
    redisRestarts: 0,
    cronCalls: 0,
    scheduledRetries: 0,
    retried: 0,
    retriesSucceeded: 0,
    duplicates: { concurrent: 0, sequential: 0, compared: 0 },
    transportFailures: 0,
    serverErrors: 0,
    rotations: 0,
    newSessions: 0,
    verified: 0,
    transactions: 0,
    signedChecks: 0,
    discrepancies: [],
    logDir: world.logDir,
  };
  try {
    print(
      `chaos: seed ${opts.seed}, ${opts.bets} rounds, ${opts.players} players, fault rate ${opts.faultRate}, ${opts.kills} kills of ${world.providers.length} provider processes, ${opts.redisRestarts} Redis restart(s); logs in ${world.logDir}`,
    );
    const origin = () => world.set.pick();
    const players = await createPlayers(opts.players, (i) =>
      createPlayer(world.casino, origin, {
        index: i,
        playerRef: `chaos-${opts.seed}-${i}`,
        operator: OPERATORS[i % OPERATORS.length]!,
        balance: i % OPERATORS.length === 0 ? '100000.00' : '10.00000000',
      }),
    );
    const sh: Shared = {
      world,
      opts,
      answers: report.answers,
      discrepancies: report.discrepancies,
      secrets: [
        world.secrets.adminToken,
        world.secrets.cronSecret,
        world.secrets.secretKey,
        ...OPERATORS.map((o) => o.secret),
        ...players.map((p) => p.launchToken),
        ...players.map((p) => p.sessionId),
      ],
      keyRounds: new Map(),
      stats: { requests: 0, concurrent: 0, sequential: 0, compared: 0, transport: 0, serverErrors: 0 },
    };
    const faults = opts.faultRate > 0 ? chaosFaults(opts.faultRate, opts.callbackTimeoutMs) : [];
    if (opts.retryFaultRate)
      for (const p of ['/wallet/credit', '/wallet/rollback']) faults.push({ path: p, kind: 'status', status: 503, probability: opts.retryFaultRate });
    if (faults.length) await world.casino.setFaults(faults, opts.seed);

    // ---- the players, until the budget of rounds is spent
    // The budget counts rounds the provider opened: an attempt refused before any round (an open
    // circuit, a round still open) gives its place back (at most as many attempts again).
    let startedRounds = 0;
    let attempts = 0;
    const take = () => (startedRounds < opts.bets && attempts < 2 * opts.bets ? (attempts++, ++startedRounds) : 0);
    const giveBack = () => {
      startedRounds -= 1;
    };
    const progress = () => startedRounds / opts.bets;
    const cron = async (o?: string): Promise<Answer> => {
      if (opts.schedulerOnly) return { status: 200, body: { scanned: 0 }, text: '', origin: '', ms: 0 }; // the scheduler alone
      const a = await request(o ?? origin(), 'GET', '/api/cron/wallet-retries?limit=100', undefined, { authorization: `Bearer ${world.secrets.cronSecret}` });
      report.cronCalls += 1;
      if (a.status === 200) {
        report.retried += Number(a.body.retried ?? 0);
        report.retriesSucceeded += Number(a.body.succeeded ?? 0);
      }
      return a;
    };
    const playerLoop = async (p: Player) => {
      const r = rng(opts.seed * 7919 + p.index);
      const call = playerCaller(sh, p.index, r);
      while (take()) {
        try {
          if (!(await oneRound(p, r, call))) giveBack();
        } catch (err) {
          report.discrepancies.push(`harness error while ${p.playerRef} played: ${(err as Error).stack ?? String(err)}`);
        }
      }
    };
    const oneRound = async (p: Player, r: Rng, call: Caller) => {
      const game = pickGame(r);
      const amount = amountFor(p, r);
      const outcome =
        game === 'mines'
          ? await playMines(call, p, r, { amount, mineCount: between(r, 1, 10), reveals: between(r, 1, 5) })
          : game === 'blackjack'
            ? await playBlackjack(call, p, r, { amount, policy: 'random' })
            : await playSettled(call, p, game, amount, settledParams(game, r, { invalidDiceShare: 0.05 }));
      const extra = r();
      if (extra < 0.01) {
        // a reloaded iframe: a new session (which also starts the player's pending retries)
        p.sessionId = await openSession(origin, p).catch(() => p.sessionId);
        report.newSessions += 1;
      } else if (extra < 0.015) {
        const a = await call('POST', '/api/fairness/rotate', { sessionId: p.sessionId });
        if (a.status === 200) report.rotations += 1;
      }
      return outcome.roundId !== null;
    };

    // ---- kills, Redis restarts and cron calls while they play
    const { events, killOrder } = chaosSchedule(master, opts.kills, opts.redisRestarts, world.providers.length);
    let playing = true;
    const chaosMonkey = async () => {
      let k = 0;
      for (const ev of events) {
        while (progress() < ev.at) await sleep(50);
        if (ev.kind === 'kill') {
          const victim = world.providers[killOrder[k++] ?? 0]!;
          await victim.kill('SIGKILL');
          report.kills += 1;
          print(`  [${(progress() * 100).toFixed(0)}%] SIGKILL ${victim.name} (pid ${victim.pid})`);
          const pause = 200 + master() * 1300;
          if (opts.restartKilled === false) {
            world.set.origins = world.providers.filter((p) => p.running).map((p) => p.url); // the client's list follows
            continue;
          }
          await sleep(pause);
          for (let attempt = 1; ; attempt++) {
            try {
              await victim.restart();
              report.providerRestarts += 1;
              break;
            } catch (err) {
              print(`  restart of ${victim.name} failed (${(err as Error).message}); attempt ${attempt}`);
              if (attempt >= 5) {
                report.discrepancies.push(`${victim.name} could not be restarted: ${(err as Error).message}`);
                break;
              }
              await sleep(1000);
            }
          }
        } else {
          print(`  [${(progress() * 100).toFixed(0)}%] Redis restart`);
          await world.redis.restart(300 + master() * 700);
          report.redisRestarts += 1;
        }
      }
    };
    const cronLoop = async () => {
      while (playing) {
        await sleep(3000);
        if (playing) await cron();
      }
    };
    const progressLoop = async () => {
      let last = 0;
      let lastAt = Date.now();
      while (playing) {
        await sleep(1000);
        const pct = Math.floor(progress() * 10);
        if (pct > last || Date.now() - lastAt > 60_000) {
          last = pct;
          lastAt = Date.now();
          print(`  ${startedRounds} rounds started, ${sh.stats.requests} requests, ${((Date.now() - started) / 1000).toFixed(0)} s`);
        }
      }
    };
    const monkey = chaosMonkey();
    const side = Promise.all([cronLoop(), progressLoop()]);
    await Promise.all(players.map(playerLoop));
    print(`  every round played after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    await monkey; // its last events still happen (progress reached 1)
    playing = false;
    await side;

    // ---- the end of the run: open rounds finished, faults off, the retry job until nothing is pending
    print(`  play done after ${((Date.now() - started) / 1000).toFixed(0)} s; finishing open rounds and draining retries`);
    const finishAll = async () => {
      for (const p of players) await finishOpenRounds(playerCaller(sh, p.index, rng(opts.seed + 31 * p.index)), p, rng(opts.seed + p.index), 'random');
    };
    await finishAll();
    if (!opts.schedulerOnly) for (let i = 0; i < 5; i++) await cron();
    for (const f of await world.casino.faults()) {
      if (!f.hits) continue;
      report.faults.add(faultLabel(f.rule, opts.callbackTimeoutMs), f.hits);
      report.faultsByPath.add(`${f.rule.path.replace('/wallet/', '')}: ${faultLabel(f.rule, opts.callbackTimeoutMs)}`, f.hits);
    }
    await world.casino.clearFaults();
    await sleep(opts.callbackTimeoutMs * 2 + 500); // the slowest faulted request has landed
    const deadline = Date.now() + 180_000;
    for (;;) {
      const open = await openRounds(db);
      if (Object.keys(open).length === 0) break;
      if (Date.now() > deadline) {
        report.discrepancies.push(`rounds still open after the retry job ran for 3 minutes: ${JSON.stringify(open)}`);
        break;
      }
      if (open.active) await finishAll();
      const a = await cron();
      if (a.status !== 200) await sleep(500);
      else if (Number(a.body.scanned ?? 0) === 0) await sleep(1000); // leases of killed workers run out
    }

    // ---- every player reveals its seeds
    for (const p of players) {
      const a = await playerCaller({ ...sh, opts: { ...opts, duplicateShare: 0 } }, p.index, rng(1))('POST', '/api/fairness/rotate', {
        sessionId: p.sessionId,
      });
      if (a.status !== 200) report.discrepancies.push(`rotation of ${p.playerRef} refused: ${a.status} ${a.text.slice(0, 200)}`);
    }

    // ---- the bank check
    print('  bank check: the casino ledger against every stored round');
    const [ledger, rounds] = await Promise.all([world.casino.ledger(), storedRounds(db)]);
    const balances = new Map<string, bigint>();
    for (const p of players) balances.set(playerKey(p), await world.casino.balance(p.playerRef, p.currency));
    const bank = bankCheck({ ledger, rounds, players, balances });
    report.discrepancies.push(...bank.discrepancies);
    report.rounds = bank.rounds;
    report.byStatus = bank.byStatus;
    report.transactions = bank.transactions;

    print(`  re-verifying ${rounds.filter((r) => ['settled', 'cashed_out', 'busted'].includes(r.status)).length} settled rounds from their revealed seeds`);
    const rv = await reverifyRounds(world.set.origins, rounds, { parallel: 8 });
    report.verified = rv.verified;
    report.discrepancies.push(...rv.discrepancies);

    // ---- faults that hit, and the casino's own view of what it saw
    const log = await world.casino.requests();
    report.walletRequests = log.length;
    report.faultedWalletRequests = log.filter((e) => e.fault).length;
    if (opts.schedulerOnly) report.discrepancies.push(...overlappingCallbacks(log));
    report.scheduledRetries = log.filter((e) => (e.path === '/wallet/credit' || e.path === '/wallet/rollback') && e.fault).length;
    const unexpected = log.filter((e) => !e.fault && (e.status === 401 || e.status === 409 || (e.status !== null && e.status >= 500)));
    for (const e of unexpected.slice(0, 20))
      report.discrepancies.push(`the casino answered ${e.status} ${e.code ?? ''} to ${e.path} ${e.idempotencyKey ?? ''} without an injected fault`);

    // ---- signed operator requests across two processes sharing Redis (CONTRACT.md §6)
    const someRound = rounds.find((r) => r.operatorId === OPERATORS[0]!.operatorId)?.roundId;
    const signed = await signedRequestChecks(
      world.providers.filter((p) => p.running).map((p) => p.url),
      OPERATORS[0]!,
      someRound,
    );
    report.signedChecks = signed.checks;
    report.discrepancies.push(...signed.discrepancies);
    sh.secrets.push(...signed.signatures);

    report.discrepancies.push(...(await scanLogs(world.logDir, sh.secrets)));
    report.requests = sh.stats.requests;
    report.duplicates = { concurrent: sh.stats.concurrent, sequential: sh.stats.sequential, compared: sh.stats.compared };
    report.transportFailures = sh.stats.transport;
    report.serverErrors = sh.stats.serverErrors;
  } finally {
    report.seconds = (Date.now() - started) / 1000;
    await db.end().catch(() => undefined);
    await world.stop();
  }
  return report;
}

/**
 * Signed operator requests against two different processes that share Redis: a nonce used on
 * one is SIGNATURE_REPLAYED on the other; a stale timestamp, a wrong signature and missing
 * headers are refused with their codes. Answers the signatures sent (searched for in the logs).
 */
export async function signedRequestChecks(
  origins: string[],
  op: OperatorSpec,
  roundId: string | undefined,
): Promise<{ checks: number; discrepancies: string[]; signatures: string[] }> {
  const out: string[] = [];
  const signatures: string[] = [];
  let checks = 0;
  const [a, b] = [origins[0]!, origins[1 % origins.length]!];
  const headers = (target: string, o: { timestamp?: number; secret?: string } = {}) => {
    const { 'content-type': _ct, ...h } = signRequest({
      operatorId: op.operatorId,
      secret: o.secret ?? op.secret,
      method: 'GET',
      path: target,
      body: '',
      ...(o.timestamp !== undefined ? { timestamp: o.timestamp } : {}),
    });
    signatures.push(h['x-signature']!);
    return h;
  };
  const expectAnswer = async (origin: string, target: string, h: Record<string, string>, status: number, code: string | null, what: string) => {
    const r = await request(origin, 'GET', target, undefined, h);
    checks += 1;
    if (r.status !== status || (code !== null && r.body.code !== code))
      out.push(`signed request (${what}) to ${target}: expected ${status} ${code ?? ''}, got ${r.status} ${r.text.slice(0, 200)}`);
  };
  for (const target of [`/api/reconciliation?operatorId=${op.operatorId}&limit=1`, ...(roundId ? [`/api/bets/${roundId}`] : [])]) {
    const h = headers(target);
    await expectAnswer(a, target, h, 200, null, 'fresh, first process');
    await expectAnswer(b, target, h, 401, 'SIGNATURE_REPLAYED', 'its nonce again, second process');
    await expectAnswer(b, target, headers(target, { timestamp: Math.floor(Date.now() / 1000) - 3600 }), 401, 'SIGNATURE_STALE', 'an hour old');
    await expectAnswer(b, target, headers(target, { secret: `${op.secret}-wrong` }), 401, 'SIGNATURE_INVALID', 'wrong secret');
    const { 'x-signature': _s, ...unsigned } = headers(target);
    await expectAnswer(a, target, unsigned, 401, 'SIGNATURE_REQUIRED', 'no X-Signature');
  }
  return { checks, discrepancies: out, signatures };
}

/** Secrets in any log line of the run (provider processes, casino, Redis). */
async function scanLogs(dir: string, secrets: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log'))) {
    const lines = createInterface({ input: createReadStream(path.join(dir, f)), crlfDelay: Infinity });
    let n = 0;
    for await (const line of lines) {
      n += 1;
      for (const s of secrets) if (line.includes(s)) found.push(`a secret appeared in ${f} line ${n}`);
      if (found.length > 20) return found;
    }
  }
  return found;
}

export function chaosSummary(r: ChaosReport): string[] {
  const share = r.walletRequests ? ((100 * r.faultedWalletRequests) / r.walletRequests).toFixed(1) : 'n/a';
  return [
    `seed ${r.seed}, ${r.seconds.toFixed(0)} s`,
    `rounds: ${r.rounds} (${Object.entries(r.byStatus)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}); ${r.requests} player requests; answers: ${r.answers.toString()}`,
    `wallet requests: ${r.walletRequests}, faulted: ${r.faultedWalletRequests} (${share}%); casino transactions: ${r.transactions}`,
    `faults by kind: ${r.faults.toString()}`,
    `faults by path: ${r.faultsByPath.toString()}`,
    `kills (SIGKILL): ${r.kills}, provider restarts: ${r.providerRestarts}, Redis restarts: ${r.redisRestarts}; player requests that lost their connection: ${r.transportFailures}, answered 500/503 (retried): ${r.serverErrors}`,
    `retry job: ${r.cronCalls} calls, ${r.retried} retries (${r.retriesSucceeded} confirmed)`,
    `identical requests: ${r.duplicates.concurrent} sent twice at once to two processes, ${r.duplicates.sequential} resent after the answer; ${r.duplicates.compared} compared`,
    `seed rotations mid-run: ${r.rotations}, new sessions mid-run: ${r.newSessions}; rounds re-verified from revealed seeds: ${r.verified}`,
    `signed operator requests across two processes (replayed, stale, wrong, unsigned): ${r.signedChecks} checked; answers and log lines searched for secrets, launch tokens and signatures`,
    `discrepancies: ${r.discrepancies.length}`,
  ];
}

/** The rows of docs/reliability.md's table of the last long run, ready to paste. */
export function chaosMarkdown(r: ChaosReport, command: string): string[] {
  const share = r.walletRequests ? ((100 * r.faultedWalletRequests) / r.walletRequests).toFixed(1) : 'n/a';
  const status = Object.entries(r.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    '| figure | value |',
    '|---|---|',
    `| command | \`${command}\` |`,
    `| date (UTC), duration | ${new Date().toISOString().slice(0, 16).replace('T', ' ')}, ${(r.seconds / 60).toFixed(0)} min |`,
    `| rounds (bets) | ${r.rounds} (${status}) |`,
    `| player requests | ${r.requests} |`,
    `| wallet requests, faulted | ${r.walletRequests}, ${r.faultedWalletRequests} (${share}%) |`,
    `| faults by kind | ${r.faults.toString()} |`,
    `| SIGKILLs, provider restarts, Redis restarts | ${r.kills}, ${r.providerRestarts}, ${r.redisRestarts} |`,
    `| player requests cut by a kill, 500/503 answers (retried) | ${r.transportFailures}, ${r.serverErrors} |`,
    `| retry job calls, retries (confirmed) | ${r.cronCalls}, ${r.retried} (${r.retriesSucceeded}) |`,
    `| identical requests (two processes at once, resent after the answer) | ${r.duplicates.concurrent}, ${r.duplicates.sequential} |`,
    `| casino transactions checked | ${r.transactions} |`,
    `| rounds re-verified from revealed seeds | ${r.verified} |`,
    `| signed operator requests checked across two processes | ${r.signedChecks} |`,
    `| **discrepancies** | **${r.discrepancies.length}** |`,
  ];
}
