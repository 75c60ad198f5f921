/**
 * The bench's counts per bet that do not move with the machine's load (issue 25): PL/pgSQL calls,
 * and the bytes V8 allocates in the provider.
 *
 * PL/pgSQL calls per bet (issue 25; docs/performance.md "the tenth session"): the run's
 * database counts each function's calls from its providers' first connection, and the counts of a
 * window divided by its bets are what `npm run bench` prints. A count, not a time: it does not move
 * with the machine's load. A dice bet writes its round three times (opened, debit answered, credit
 * answered), and each write checks the round's rules once (gp_rounds_rules, the CHECK of rounds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocatedPerBet, BENCH_OPERATOR } from '../src/bench.js';
import { closePools, request } from '../src/client.js';
import { callsPerBet, describeCalls, isSuperuser, PgStats, serverUrl, type PgCounters } from '../src/pg.js';
import { createPlayer, type Player } from '../src/players.js';
import { heapAllocatedBytes, ownHeapAllocatedBytes } from '../src/proc-stats.js';
import { startWorld, type World } from '../src/world.js';

const BETS = 4;
let world: World;
let player: Player;
let stats: PgStats;

beforeAll(async () => {
  world = await startWorld({ slot: 'bigTest', providers: 1, operators: [BENCH_OPERATOR], logLevel: 'warn', trackFunctionCalls: true });
  player = await createPlayer(world.casino, () => world.providers[0]!.url, {
    index: 0,
    playerRef: 'counts-test',
    operator: BENCH_OPERATOR,
    balance: '1000.00',
  });
  stats = new PgStats(serverUrl(), world.db.name, world.wire, world.functionsTracked);
  await stats.open();
}, 120_000);
afterAll(async () => {
  await stats?.close();
  await closePools();
  await world?.stop();
});

/** Counters once every call of the window has reached the statistics (a backend reports them within a second or so of its transaction). */
async function settledCounters(before: PgCounters, roundWrites: number): Promise<PgCounters> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const now = await stats.counters();
    const seen = (now.functionCalls?.gp_rounds_rules ?? 0) - (before.functionCalls?.gp_rounds_rules ?? 0);
    if (seen >= roundWrites || Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const diceBet = (key: string) =>
  request(world.providers[0]!.url, 'POST', '/api/bets', {
    sessionId: player.sessionId,
    gameType: 'dice',
    amount: 1,
    params: { target: 50.5, direction: 'over' },
    idempotencyKey: key,
  });

describe('bytes allocated per bet', () => {
  it("are read from the provider's metrics listener at both ends of a window", async () => {
    const url = world.providers[0]!.metricsUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const before = await heapAllocatedBytes(url);
    // the providers run the harness's Node; one that does not report the figure (Node 20) gives n/a
    if (ownHeapAllocatedBytes() === undefined) {
      expect(before).toBeNull();
      return;
    }
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < BETS; i++) expect((await diceBet(`alloc-test-${i}`)).status).toBe(200);
    const after = await heapAllocatedBytes(url);
    // a settled dice bet allocates tens of KiB at least (the bench prints ≈ 190)
    const perBet = allocatedPerBet([before], [after], BETS)!;
    expect(perBet).toBeGreaterThan(10);
    expect(perBet).toBeLessThan(100_000);
  });

  it('are summed over the servers, and n/a when a server reports no figure or no bet completed', async () => {
    expect(allocatedPerBet([1024, 2048], [1024 * 11, 2048 + 1024 * 10], 4)).toBe(5);
    expect(allocatedPerBet([1024, null], [2048, 4096], 4)).toBeNull();
    expect(allocatedPerBet([1024], [2048], 0)).toBeNull();
    expect(await heapAllocatedBytes(null)).toBeNull();
  });
});

describe('PL/pgSQL calls per bet', () => {
  it('are counted in the run’s database from the providers’ first connection, per function', async () => {
    // the database can be told to count when the role is a superuser (the test clusters' postgres,
    // README); another role gets n/a, which the second case holds
    expect(world.functionsTracked).toBe(await isSuperuser());
    if (!world.functionsTracked) return;
    const before = await stats.counters();
    expect(before.functionCalls).not.toBeNull();

    for (let i = 0; i < BETS; i++) {
      const bet = await diceBet(`counts-test-${i}`);
      expect(bet.status, bet.text).toBe(200);
      expect(bet.body.roundStatus).toBe('settled');
    }

    const after = await settledCounters(before, 3 * BETS);
    const perBet = callsPerBet(before.functionCalls, after.functionCalls, BETS)!;
    expect(perBet.gp_rounds_rules).toBe(3);
    // the round's opening inserts it (its trigger), the debit's and the credit's rows name it (theirs)
    expect(perBet.rounds_before_insert).toBe(1);
    expect(perBet.wallet_callbacks_round_exists).toBe(2);

    // the line the bench prints: most called first
    expect(describeCalls(perBet).each.startsWith('gp_wallet_callbacks_rules 4.00, gp_rounds_rules 3.00')).toBe(true);
  }, 120_000);

  it('are summed and listed most called first, ties by name, only for functions called in the window', () => {
    const perBet = callsPerBet({ a: 10, b: 4, idle: 7 }, { a: 15, b: 14, c: 5, idle: 7 }, 5)!;
    expect(perBet).toEqual({ a: 1, b: 2, c: 1 });
    expect(describeCalls(perBet)).toEqual({ total: 4, each: 'b 2.00, a 1.00, c 1.00' });
  });

  it('are n/a, not zero, when the database does not count them', async () => {
    const blind = new PgStats(serverUrl(), world.db.name, world.wire, false);
    await blind.open();
    try {
      const c = await blind.counters();
      expect(c.functionCalls).toBeNull();
      expect(callsPerBet(c.functionCalls, c.functionCalls, 10)).toBeNull();
    } finally {
      await blind.close();
    }
  });
});
