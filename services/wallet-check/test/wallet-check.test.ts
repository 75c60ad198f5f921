/**
 * The checker against the reference casino over real HTTP: every check passes against the casino
 * as it is, and each of its misbehaviours is caught by the checks written for it. Performance
 * checks are only asserted to have run and reported figures (tests never assert timings).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MISBEHAVIOUR_NAMES, startReferenceCasino, type MisbehaviourName, type Misbehaviours, type ReferenceCasino } from '@gp/reference-casino';
import { afterEach, describe, expect, it } from 'vitest';
import { CATEGORIES, CHECKS, main, runWalletCheck, type Report, type WalletCheckOptions } from '../src/index.js';

const SECRET = 'wallet-check-secret-0123456789abcdef';
const OPERATORS = {
  'op-usd': { secret: SECRET, currency: 'USD', decimals: 2 },
  'op-doge': { secret: SECRET, currency: 'DOGE', decimals: 8 },
};
/** Short load and few samples: the figures are reported, never asserted. */
const QUICK = { samples: 2, loadSeconds: 0.5, loadConcurrency: 4 };

let casino: ReferenceCasino | undefined;
afterEach(async () => {
  await casino?.close();
  casino = undefined;
});

async function startCasino(misbehaviours: Misbehaviours = {}, balance = '100.00') {
  casino = await startReferenceCasino({ operators: OPERATORS, misbehaviours });
  casino.createPlayer({ playerRef: 'p1', displayName: 'Test Player', balance, currency: 'USD' });
  casino.createPlayer({ playerRef: 'p1', balance: '123456789012.12345678', currency: 'DOGE' });
  return { casino, token: casino.issueLaunchToken('p1', { operatorId: 'op-usd' }) };
}

function options(c: ReferenceCasino, launchToken: string, extra: Partial<WalletCheckOptions> = {}): WalletCheckOptions {
  return { url: c.url, operatorId: 'op-usd', secret: SECRET, launchToken, playerRef: 'p1', currency: 'USD', ...QUICK, ...extra };
}

const notPassed = (r: Report) => r.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.message}`);
const failedIds = (r: Report) => r.checks.filter((c) => c.status === 'fail').map((c) => c.id);

describe('the checks', () => {
  it('are at least 40, in the categories of the issue, each with a SPEC.md or CONTRACT.md clause and a unique id', () => {
    expect(CHECKS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CHECKS.map((c) => c.id)).size).toBe(CHECKS.length);
    for (const c of CHECKS) {
      expect(c.clause, c.id).toMatch(/(SPEC|CONTRACT)\.md/);
      expect(c.id.startsWith(`${c.category}.`), c.id).toBe(true);
    }
    for (const category of CATEGORIES)
      expect(
        CHECKS.some((c) => c.category === category),
        category,
      ).toBe(true);
  });

  it('are all listed in the README', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    for (const c of CHECKS) expect(readme, c.id).toContain(`| \`${c.id}\` |`);
  });
});

describe('against the reference casino as it is', () => {
  it('every check passes, and the test player ends with the balance it had', async () => {
    const { casino: c, token } = await startCasino();
    const report = await runWalletCheck(options(c, token));
    expect(notPassed(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary.passed).toBe(CHECKS.length);
    expect(c.balanceOf('p1', 'USD')).toBe(10_000n);
    // every debit of the run was undone: debits = credits + rollbacks, in minor units
    const sum = (type: string) =>
      c
        .transactions()
        .filter((t) => t.type === type)
        .reduce((a, t) => a + t.amount, 0n);
    expect(sum('debit')).toBe(sum('credit') + sum('rollback'));
    expect(sum('debit')).toBeGreaterThan(0n);
  });

  it('performance checks ran and reported numbers', async () => {
    const { casino: c, token } = await startCasino();
    const report = await runWalletCheck(options(c, token, { only: ['performance'] }));
    const load = report.checks.find((r) => r.id === 'performance.load')!;
    expect(load.status).toBe('pass');
    for (const op of ['balance', 'debit', 'credit']) {
      const f = load.figures![`${op} ms`] as Record<string, number>;
      expect(f.n).toBeGreaterThan(0);
      for (const k of ['p50', 'p99', 'max']) expect(Number.isFinite(f[k])).toBe(true);
    }
    for (const op of ['validate-session', 'balance', 'debit', 'credit', 'rollback']) {
      const r = report.checks.find((x) => x.id === `performance.${op}`)!;
      expect(r.status, r.message).toBe('pass');
      expect((r.figures![`${op} ms`] as Record<string, number>).n).toBe(QUICK.samples);
    }
  });

  it('a wallet that refuses our signature fails session.validate, and every check that needs the session is skipped', async () => {
    const { casino: c, token } = await startCasino();
    const report = await runWalletCheck({ ...options(c, token), secret: 'not-the-shared-secret-0123456789' });
    expect(report.ok).toBe(false);
    const validate = report.checks.find((r) => r.id === 'session.validate')!;
    expect(validate.status).toBe('fail');
    expect(validate.message).toContain('SIGNATURE_INVALID');
    // the checks that need no session fail on the same 401; all others are skipped, none passes but the refusal-body check
    expect(report.checks.filter((r) => r.status === 'fail').map((r) => r.id)).toEqual([
      'session.validate',
      'session.unknown-token',
      'performance.validate-session',
    ]);
    expect(report.checks.filter((r) => r.status === 'pass').map((r) => r.id)).toEqual(['run.refusal-bodies']);
    expect(report.summary.skipped).toBe(CHECKS.length - 4);
    expect(c.transactions()).toEqual([]);
  });

  it('an 8-decimal currency behind a path prefix passes too (the signed PATH is the interface path)', async () => {
    const { casino: c } = await startCasino();
    const token = c.issueLaunchToken('p1', { operatorId: 'op-doge' });
    const report = await runWalletCheck({
      ...options(c, token),
      url: `${c.url}/casino-a/gp`,
      operatorId: 'op-doge',
      currency: 'DOGE',
      only: ['signature', 'money', 'rollback'],
    });
    expect(notPassed(report)).toEqual([]);
    expect(report.target).toMatchObject({ currency: 'DOGE', decimals: 8 });
    expect(c.balanceOf('p1', 'DOGE')).toBe(12_345_678_901_212_345_678n);
    expect(c.requests().every((r) => r.prefix === '/casino-a/gp')).toBe(true);
  });
});

/** Each misbehaviour of the reference casino and the checks that must catch it. */
const CAUGHT: Record<MisbehaviourName, { on: Misbehaviours; fails: string[]; extra?: Partial<WalletCheckOptions> }> = {
  'credit-twice-on-repeat': { on: { 'credit-twice-on-repeat': true }, fails: ['idempotency.credit-repeat', 'run.balance-restored'] },
  'ignore-rollbacks': { on: { 'ignore-rollbacks': true }, fails: ['rollback.restores', 'idempotency.rollback-repeat', 'run.balance-restored'] },
  'accept-stale-timestamp': {
    on: { 'accept-stale-timestamp': true },
    fails: ['signature.stale-timestamp', 'signature.future-timestamp', 'signature.millisecond-timestamp'],
  },
  'accept-reused-nonce': { on: { 'accept-reused-nonce': true }, fails: ['signature.replayed-request', 'signature.reused-nonce'] },
  'accept-bad-signature': { on: { 'accept-bad-signature': true }, fails: ['signature.wrong-secret', 'signature.wrong-path', 'signature.tampered-body'] },
  'answer-other-currency': { on: { 'answer-other-currency': true }, fails: ['session.balance', 'money.debit', 'money.credit'] },
  'accept-over-precise': { on: { 'accept-over-precise': true }, fails: ['input.over-precise'] },
  'accept-late-debit': { on: { 'accept-late-debit': true }, fails: ['rollback.late-debit'] },
  'racy-idempotency': { on: { 'racy-idempotency': true }, fails: ['idempotency.concurrent-debits', 'idempotency.concurrent-credits'] },
  'ignore-idempotency-conflict': { on: { 'ignore-idempotency-conflict': true }, fails: ['idempotency.debit-conflict', 'idempotency.credit-conflict'] },
  'accept-negative-amount': { on: { 'accept-negative-amount': true }, fails: ['input.negative-debit', 'input.negative-credit'] },
  'refuse-zero-credit': { on: { 'refuse-zero-credit': true }, fails: ['money.zero-credit'] },
  'refuse-unknown-rollback': { on: { 'refuse-unknown-rollback': true }, fails: ['rollback.unknown-debit'] },
  'amounts-as-strings': { on: { 'amounts-as-strings': true }, fails: ['session.balance', 'money.debit'] },
  // every answer 150 ms late against a 100 ms timeout: only the latency checks may notice
  'slow-answers': {
    on: { 'slow-answers': 150 },
    fails: ['performance.validate-session', 'performance.balance', 'performance.debit', 'performance.credit', 'performance.rollback', 'performance.load'],
    extra: { timeoutMs: 100, only: ['performance'] },
  },
};

describe('each misbehaviour of the reference casino is caught', () => {
  it('the table covers every misbehaviour the casino has', () => {
    expect(Object.keys(CAUGHT).sort()).toEqual([...MISBEHAVIOUR_NAMES].sort());
  });

  for (const [name, { on, fails, extra }] of Object.entries(CAUGHT)) {
    it(`${name}: ${fails.join(', ')} fail`, async () => {
      const { casino: c, token } = await startCasino(on);
      const report = await runWalletCheck(options(c, token, extra));
      expect(report.ok).toBe(false);
      expect(failedIds(report)).toEqual(expect.arrayContaining(fails));
      for (const id of fails) {
        const r = report.checks.find((x) => x.id === id)!;
        expect(r.message.length, id).toBeGreaterThan(0);
        expect(r.exchanges.length, `${id} shows what it sent`).toBeGreaterThan(0);
      }
      if (name === 'slow-answers') {
        // slow, not wrong: every other check still passes
        expect(report.checks.filter((r) => r.status === 'fail' && !r.id.startsWith('performance.'))).toEqual([]);
      }
    });
  }
});

describe('the command line', () => {
  it('writes the summary, a JSON and a self-contained HTML report, exit 0 when all pass', async () => {
    const { casino: c, token } = await startCasino();
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-check-'));
    await writeFile(path.join(dir, 'secret'), `${SECRET}\n`);
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      [
        '--url',
        c.url,
        '--operator',
        'op-usd',
        '--secret-file',
        path.join(dir, 'secret'),
        '--token',
        token,
        '--player',
        'p1',
        '--samples',
        '2',
        '--load-seconds',
        '0.5',
        '--load-concurrency',
        '4',
        '--json',
        path.join(dir, 'r.json'),
        '--html',
        path.join(dir, 'r.html'),
      ],
      { out: (t) => out.push(t), err: (t) => err.push(t) },
    );
    expect(code, out.join('\n')).toBe(0);
    const text = out.join('\n');
    expect(text).toContain(`${CHECKS.length} checks: ${CHECKS.length} passed, 0 failed, 0 skipped`);
    const json = JSON.parse(await readFile(path.join(dir, 'r.json'), 'utf8')) as Report;
    expect(json.ok).toBe(true);
    expect(json.checks).toHaveLength(CHECKS.length);
    expect(json.checks[0]).toMatchObject({ id: 'session.validate', status: 'pass', clause: expect.stringContaining('SPEC.md') });
    const html = await readFile(path.join(dir, 'r.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src=|@import/i);
    for (const secret of [SECRET, token]) {
      expect(text).not.toContain(secret);
      expect(html).not.toContain(secret);
      expect(JSON.stringify(json)).not.toContain(secret);
    }
  });

  it('exits 1 on a failure and shows the request sent and the answer received, secrets and tokens masked', async () => {
    const { casino: c, token } = await startCasino({ 'accept-bad-signature': true });
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-check-'));
    await writeFile(path.join(dir, 'secret'), SECRET);
    await writeFile(path.join(dir, 'token'), `${token}\n`);
    const out: string[] = [];
    const code = await main(
      [
        '--url',
        c.url,
        '--operator',
        'op-usd',
        '--secret-file',
        path.join(dir, 'secret'),
        '--token-file',
        path.join(dir, 'token'),
        '--only',
        'signature',
        '--quiet',
        '--json',
        path.join(dir, 'r.json'),
      ],
      { out: (t) => out.push(t), err: () => undefined },
    );
    expect(code).toBe(1);
    const text = out.join('\n');
    expect(text).toContain('FAIL   signature.wrong-secret');
    expect(text).toMatch(/→ POST http:\/\/127\.0\.0\.1:\d+\/wallet\/debit/);
    expect(text).toContain('x-signature: [masked]');
    expect(text).toContain('"launchToken":"[masked]"');
    expect(text).toMatch(/← HTTP 200/);
    expect(text).not.toContain(token);
    expect(text).not.toContain(SECRET);
    const json = await readFile(path.join(dir, 'r.json'), 'utf8');
    expect(json).not.toContain(token);
    expect(json).not.toContain(SECRET);
  });

  it('exits 2 with the usage on missing arguments or an unreadable secret file', async () => {
    const err: string[] = [];
    const io = { out: () => undefined, err: (t: string) => err.push(t) };
    expect(await main(['--url', 'http://127.0.0.1:9'], io)).toBe(2);
    expect(err.join('\n')).toContain('missing --operator, --secret-file, --token');
    expect(await main(['--url', 'http://127.0.0.1:9', '--operator', 'o', '--token', 't', '--secret-file', '/nonexistent/secret'], io)).toBe(2);
    expect(await main(['--bogus'], io)).toBe(2);
  });
});
