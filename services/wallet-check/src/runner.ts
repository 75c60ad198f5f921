/**
 * Runs the checks in order against one wallet and collects a report. Checks run one after the
 * other (each reads the balance before and after what it does); a check that throws anything but
 * a CheckFailure is reported as failed with the checker's error, never as passed.
 */
import { CheckBlocked, CheckContext, CheckFailure, type ResolvedOptions } from './context.js';
import { CHECKS, type Category, type CheckDef, type Figures } from './checks/index.js';
import { WalletHttp } from './http.js';
import { maskExchange, maskText, maskUrl, type MaskedExchange } from './mask.js';

export const TOOL = { name: '@gp/wallet-check', version: '0.1.0' };

export interface WalletCheckOptions {
  /** The wallet's callback base ({callbackBaseUrl}); /wallet/... is appended. */
  url: string;
  operatorId: string;
  /** The shared operator secret. */
  secret: string;
  /** A launch token of a test player, issued by the casino. */
  launchToken: string;
  /** The test player's playerRef, when validate-session must name it. */
  playerRef?: string;
  /** The operator profile's currency, when validate-session must name it. */
  currency?: string;
  /** Decimals of the currency when they differ from SPEC.md's table. */
  decimals?: number;
  /** gameType sent in the requests; default dice. */
  gameType?: string;
  /** Amount of each test debit, decimal text; default the smallest unit of the currency. */
  amount?: string;
  /** Callback timeout the answers are measured against; default 3000 (SPEC.md Limits). */
  timeoutMs?: number;
  /** Requests measured per operation; default 5. */
  samples?: number;
  /** Length of the load test in seconds; default 10. */
  loadSeconds?: number;
  /** Requests in flight during the load test; default 20. */
  loadConcurrency?: number;
  /** Only checks whose id starts with one of these (categories or ids); session.* and run.* always run. */
  only?: string[];
  /** Called after each check (progress). */
  onResult?: (result: CheckResult) => void;
}

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  category: Category;
  title: string;
  clause: string;
  status: CheckStatus;
  message: string;
  figures?: Figures;
  ms: number;
  /** Requests sent and answers received, secrets and launch tokens masked. */
  exchanges: MaskedExchange[];
}

export interface Report {
  tool: typeof TOOL;
  startedAt: string;
  finishedAt: string;
  target: { url: string; operatorId: string; playerRef?: string; currency?: string; decimals?: number };
  settings: { timeoutMs: number; samples: number; loadSeconds: number; loadConcurrency: number; amount: string; gameType: string };
  summary: { total: number; passed: number; failed: number; skipped: number };
  /** True when every check passed. */
  ok: boolean;
  checks: CheckResult[];
}

function resolve(o: WalletCheckOptions): ResolvedOptions {
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    throw new Error(`--url ${o.url} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('--url must be http:// or https://');
  if (!o.operatorId) throw new Error('--operator is required');
  if (!o.secret) throw new Error('the operator secret is empty');
  if (!o.launchToken) throw new Error('--token is required');
  const positive = (name: string, v: number | undefined, dflt: number, max: number): number => {
    const x = v ?? dflt;
    if (!Number.isFinite(x) || x <= 0 || x > max) throw new Error(`${name} must be a number above 0 and at most ${max}`);
    return x;
  };
  if (o.decimals !== undefined && !(Number.isInteger(o.decimals) && o.decimals >= 0 && o.decimals <= 18))
    throw new Error('--decimals must be an integer 0..18');
  return {
    operatorId: o.operatorId,
    launchToken: o.launchToken,
    ...(o.playerRef !== undefined ? { playerRef: o.playerRef } : {}),
    ...(o.currency !== undefined ? { currency: o.currency } : {}),
    ...(o.decimals !== undefined ? { decimals: o.decimals } : {}),
    gameType: o.gameType ?? 'dice',
    ...(o.amount !== undefined ? { amount: o.amount } : {}),
    timeoutMs: positive('--timeout-ms', o.timeoutMs, 3000, 600_000),
    samples: Math.round(positive('--samples', o.samples, 5, 1000)),
    loadSeconds: positive('--load-seconds', o.loadSeconds, 10, 600),
    loadConcurrency: Math.round(positive('--load-concurrency', o.loadConcurrency, 20, 200)),
  };
}

function selected(check: CheckDef, only: string[] | undefined): boolean {
  if (!only || only.length === 0 || check.category === 'session' || check.category === 'run') return true;
  return only.some((prefix) => check.id.startsWith(prefix));
}

async function runChecks(ctx: CheckContext, options: WalletCheckOptions, secrets: string[], results: CheckResult[]): Promise<void> {
  for (const check of CHECKS) {
    if (!selected(check, options.only)) continue;
    ctx.exchanges = [];
    const started = Date.now();
    let status: CheckStatus = 'pass';
    let message = '';
    let figures: Figures | undefined;
    try {
      const outcome = await check.run(ctx);
      message = outcome?.message ?? '';
      figures = outcome?.figures;
    } catch (err) {
      if (err instanceof CheckBlocked) {
        status = 'skip';
        message = `not run: ${err.message}`;
      } else if (err instanceof CheckFailure) {
        status = 'fail';
        message = err.message;
        figures = err.figures;
      } else {
        status = 'fail';
        message = `checker error: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    const result: CheckResult = {
      id: check.id,
      category: check.category,
      title: check.title,
      clause: check.clause,
      status,
      message: maskText(message, secrets),
      ...(figures ? { figures } : {}),
      ms: Date.now() - started,
      exchanges: ctx.exchanges.slice(0, 12).map((ex) => maskExchange(ex, secrets)),
    };
    results.push(result);
    options.onResult?.(result);
  }
}

function unitText(ctx: CheckContext, o: ResolvedOptions): string {
  try {
    return ctx.fmt(ctx.unit);
  } catch {
    return o.amount ?? 'the smallest unit';
  }
}

export async function runWalletCheck(options: WalletCheckOptions): Promise<Report> {
  const o = resolve(options);
  // An answer is waited for well past the timeout, so a slow wallet is measured, not just cut off.
  const http = new WalletHttp({
    baseUrl: options.url,
    operatorId: o.operatorId,
    secret: options.secret,
    abortMs: Math.max(o.timeoutMs * 3, o.timeoutMs + 2000),
  });
  const secrets = [options.secret, options.launchToken];
  const ctx = new CheckContext(http, o, secrets);
  const startedAt = new Date().toISOString();
  const results: CheckResult[] = [];

  try {
    await runChecks(ctx, options, secrets, results);
  } finally {
    await http.close();
  }

  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  const summary = { total: results.length, passed: count('pass'), failed: count('fail'), skipped: count('skip') };
  return {
    tool: TOOL,
    startedAt,
    finishedAt: new Date().toISOString(),
    target: {
      url: maskUrl(options.url),
      operatorId: o.operatorId,
      ...(ctx.session ? { playerRef: ctx.session.playerRef, currency: ctx.session.currency, decimals: ctx.session.decimals } : {}),
    },
    settings: {
      timeoutMs: o.timeoutMs,
      samples: o.samples,
      loadSeconds: o.loadSeconds,
      loadConcurrency: o.loadConcurrency,
      amount: unitText(ctx, o),
      gameType: o.gameType,
    },
    summary,
    ok: summary.failed === 0 && summary.skipped === 0,
    checks: results,
  };
}
