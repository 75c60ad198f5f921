/**
 * What a check works with: the signed client, the session the wallet validated, request bodies
 * shaped exactly as the provider sends them (SPEC.md "Wallet interface"), readers of the answers
 * that fail the check with a precise message, and a record of every debit sent so that the run
 * can reverse whatever it debited (CONTRACT.md §11 keys: `<roundId>:debit`, `<roundId>:credit`,
 * `<roundId>:debit:rollback`).
 */
import { randomUUID } from 'node:crypto';
import { LosslessNumber, isLosslessNumber } from 'lossless-json';
import type { Exchange, SendOptions, WalletHttp, WalletPath } from './http.js';
import { jsonAmount, jsonText, readAmount } from './money.js';
import type { Figures } from './checks/types.js';

/** The check failed: the message says what was expected and what came. */
export class CheckFailure extends Error {
  constructor(
    message: string,
    readonly figures?: Figures,
  ) {
    super(message);
  }
}
/** The check could not run (a check it depends on failed). */
export class CheckBlocked extends Error {}

export function fail(message: string): never {
  throw new CheckFailure(message);
}

export interface SessionFacts {
  operatorId: string;
  playerRef: string;
  displayName: string;
  launchToken: string;
  currency: string;
  decimals: number;
  gameType: string;
}

export interface ResolvedOptions {
  operatorId: string;
  launchToken: string;
  playerRef?: string;
  currency?: string;
  decimals?: number;
  gameType: string;
  /** Unit amount as decimal text; the smallest unit of the currency when absent. */
  amount?: string;
  timeoutMs: number;
  samples: number;
  loadSeconds: number;
  loadConcurrency: number;
}

/** An amount in a request body: minor units, or the exact JSON text to write (hostile input). */
export type BodyAmount = bigint | { raw: string } | { string: string };

interface TrackedDebit {
  key: string;
  roundId: string;
  amount: BodyAmount;
  /** applied: a 2xx came; refused: only 4xx came; unknown: no answer or 5xx. */
  state: 'applied' | 'refused' | 'unknown';
  reversed: boolean;
  /** The rollback sent for it (key and exact body), reused by the clean-up as a retry would be. */
  rollback?: { key: string; body: string; beforeDebit?: boolean };
}

export interface MoneyAnswer {
  casinoTransactionId: string;
  balance: bigint;
}

export class CheckContext {
  session: SessionFacts | undefined;
  /** The balance before the first check that moves money. */
  startBalance: bigint | undefined;
  /** Exchanges of the check that is running. */
  exchanges: Exchange[] = [];
  /** Every exchange of the run (for the checks over the whole run). */
  readonly allExchanges: Exchange[] = [];
  private readonly debits = new Map<string, TrackedDebit>();

  constructor(
    readonly http: WalletHttp,
    readonly options: ResolvedOptions,
    /** Values that must never appear in a report (the secret, the launch token). */
    readonly secrets: string[],
  ) {}

  /** The validated session; blocks the check when validate-session did not succeed. */
  get s(): SessionFacts {
    if (!this.session) throw new CheckBlocked('needs a valid session (see session.validate)');
    return this.session;
  }

  /** The unit amount of the run in minor units. */
  get unit(): bigint {
    const s = this.s;
    if (this.options.amount === undefined) return 1n;
    const text = this.options.amount;
    const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
    if (!m || (m[2] ?? '').length > s.decimals) fail(`--amount ${text} is not a positive amount with at most ${s.decimals} decimals`);
    const minor = BigInt(`${m[1]}${(m[2] ?? '').padEnd(s.decimals, '0')}`);
    if (minor <= 0n) fail('--amount must be positive');
    return minor;
  }

  newRound(): string {
    return randomUUID();
  }

  // ------------------------------------------------------------ sending

  async send(path: WalletPath, body: string, opts: SendOptions = {}): Promise<Exchange> {
    const ex = await this.http.send(path, body, opts);
    this.record(ex);
    return ex;
  }

  async resend(ex: Exchange, label: string): Promise<Exchange> {
    const again = await this.http.resend(ex.request, label);
    this.record(again);
    return again;
  }

  record(ex: Exchange): void {
    this.exchanges.push(ex);
    this.allExchanges.push(ex);
  }

  /** Sends without keeping the exchange in the check's record (load figures only). */
  async sendQuiet(path: WalletPath, body: string, opts: SendOptions = {}): Promise<Exchange> {
    const ex = await this.http.send(path, body, opts);
    this.allExchanges.push(ex);
    return ex;
  }

  // ------------------------------------------------------------ bodies (field order as the provider writes them)

  amountValue(a: BodyAmount): unknown {
    if (typeof a === 'bigint') return jsonAmount(a, this.s.decimals);
    if ('raw' in a) return new LosslessNumber(a.raw);
    return a.string;
  }

  validateBody(o: { launchToken?: string; gameType?: string } = {}): string {
    return jsonText({
      operatorId: this.http.operatorId,
      launchToken: o.launchToken ?? this.options.launchToken,
      gameType: o.gameType ?? this.options.gameType,
    });
  }

  balanceBody(o: { playerRef?: string; currency?: string; operatorId?: string } = {}): string {
    const s = this.s;
    return jsonText({
      operatorId: o.operatorId ?? s.operatorId,
      playerRef: o.playerRef ?? s.playerRef,
      gameType: s.gameType,
      currency: o.currency ?? s.currency,
    });
  }

  /** debit and credit carry the same fields. */
  moneyBody(o: {
    roundId: string;
    amount: BodyAmount;
    playerRef?: string;
    launchToken?: string;
    currency?: string;
    gameType?: string;
    operatorId?: string;
    omit?: string[];
    extra?: Record<string, unknown>;
  }): string {
    const s = this.s;
    const body: Record<string, unknown> = {
      operatorId: o.operatorId ?? s.operatorId,
      playerRef: o.playerRef ?? s.playerRef,
      launchToken: o.launchToken ?? s.launchToken,
      gameType: o.gameType ?? s.gameType,
      roundId: o.roundId,
      amount: this.amountValue(o.amount),
      currency: o.currency ?? s.currency,
      ...o.extra,
    };
    for (const name of o.omit ?? []) delete body[name];
    return jsonText(body);
  }

  rollbackBody(o: { roundId: string; debitKey: string; amount: BodyAmount; reason?: string }): string {
    const s = this.s;
    return jsonText({
      operatorId: s.operatorId,
      playerRef: s.playerRef,
      gameType: s.gameType,
      roundId: o.roundId,
      debitIdempotencyKey: o.debitKey,
      amount: this.amountValue(o.amount),
      currency: s.currency,
      reason: o.reason ?? 'wallet-check: reverse a test debit',
    });
  }

  // ------------------------------------------------------------ money operations (tracked)

  async debit(o: {
    roundId?: string;
    key?: string;
    amount?: BodyAmount;
    body?: string;
    label?: string;
    send?: SendOptions;
  }): Promise<{ ex: Exchange; roundId: string; key: string; amount: BodyAmount }> {
    const roundId = o.roundId ?? this.newRound();
    const key = o.key ?? `${roundId}:debit`;
    const amount = o.amount ?? this.unit;
    const body = o.body ?? this.moneyBody({ roundId, amount });
    this.trackDebit(key, roundId, amount);
    const ex = await this.send('/wallet/debit', body, { label: o.label ?? 'debit', idempotencyKey: key, ...o.send });
    this.noteDebitAnswer(key, ex);
    return { ex, roundId, key, amount };
  }

  /** Registers a debit key before it is sent (its answer may never come). */
  trackDebit(key: string, roundId: string, amount: BodyAmount): void {
    if (!this.debits.has(key)) this.debits.set(key, { key, roundId, amount, state: 'refused', reversed: false });
  }

  noteDebitAnswer(key: string, ex: Exchange): void {
    const d = this.debits.get(key);
    if (!d) return;
    const st = ex.response.status;
    if (st !== null && st >= 200 && st < 300) d.state = 'applied';
    else if ((st === null || st >= 500 || st === 429) && d.state === 'refused') d.state = 'unknown';
  }

  async credit(o: {
    roundId: string;
    amount: BodyAmount;
    key?: string;
    closes?: string;
    label?: string;
    body?: string;
    send?: SendOptions;
  }): Promise<Exchange> {
    const key = o.key ?? `${o.roundId}:credit`;
    const ex = await this.send('/wallet/credit', o.body ?? this.moneyBody({ roundId: o.roundId, amount: o.amount }), {
      label: o.label ?? 'credit',
      idempotencyKey: key,
      ...o.send,
    });
    if (o.closes && is2xx(ex)) this.markReversed(o.closes);
    return ex;
  }

  async rollback(o: { roundId: string; debitKey: string; amount: BodyAmount; key?: string; reason?: string; label?: string }): Promise<Exchange> {
    const key = o.key ?? `${o.debitKey}:rollback`;
    const body = this.rollbackBody(o);
    let d = this.debits.get(o.debitKey);
    if (!d) {
      d = { key: o.debitKey, roundId: o.roundId, amount: o.amount, state: 'refused', reversed: false };
      this.debits.set(o.debitKey, d);
    }
    d.rollback ??= { key, body, beforeDebit: d.state === 'refused' };
    const ex = await this.send('/wallet/rollback', body, { label: o.label ?? 'rollback', idempotencyKey: key });
    if (is2xx(ex) && d.state !== 'refused') d.reversed = true;
    return ex;
  }

  markReversed(debitKey: string): void {
    const d = this.debits.get(debitKey);
    if (d) d.reversed = true;
  }

  /** Rolls back every debit that was (or may have been) applied and not reversed yet; answers what it could not reverse. */
  async reverseOutstanding(): Promise<string[]> {
    const left: string[] = [];
    for (const d of this.debits.values()) {
      // a debit applied after its rollback cannot be rolled back again: the final compensation covers it
      if (d.reversed || d.state === 'refused' || d.rollback?.beforeDebit) continue;
      const rb = d.rollback ?? {
        key: `${d.key}:rollback`,
        body: this.rollbackBody({ roundId: d.roundId, debitKey: d.key, amount: d.amount, reason: 'wallet-check: clean-up' }),
      };
      d.rollback = rb;
      let ok = false;
      for (let attempt = 0; attempt < 2 && !ok; attempt++) {
        const ex = await this.send('/wallet/rollback', rb.body, { label: 'clean-up rollback', idempotencyKey: rb.key });
        ok = is2xx(ex);
      }
      if (ok) d.reversed = true;
      else left.push(d.key);
    }
    return left;
  }

  // ------------------------------------------------------------ reading answers

  /** The balance now; fails the check when the answer is not a proper balance answer. */
  async balance(label = 'balance'): Promise<bigint> {
    const ex = await this.send('/wallet/balance', this.balanceBody(), { label });
    expectStatus(ex, 200);
    const body = objectBody(ex);
    const b = readAmount(body['balance'], this.s.decimals);
    if (!b.ok) fail(`balance answer: balance ${b.problem}`);
    if (body['currency'] !== this.s.currency) fail(`balance answer: currency ${JSON.stringify(body['currency'])}, expected ${this.s.currency}`);
    return b.minor;
  }

  /** Checks a 200 answer of debit, credit or rollback: casinoTransactionId, balance, currency. */
  moneyAnswer(ex: Exchange, what = ex.label): MoneyAnswer {
    expectStatus(ex, 200, what);
    const body = objectBody(ex, what);
    const tx = body['casinoTransactionId'];
    if (typeof tx !== 'string' || tx === '') fail(`${what}: casinoTransactionId must be a non-empty string, got ${show(tx)}`);
    const b = readAmount(body['balance'], this.s.decimals);
    if (!b.ok) fail(`${what}: balance ${b.problem}`);
    if (body['currency'] !== this.s.currency) fail(`${what}: currency ${show(body['currency'])}, expected ${this.s.currency}`);
    return { casinoTransactionId: tx, balance: b.minor };
  }

  async expectBalance(expected: bigint, why: string): Promise<void> {
    const now = await this.balance('balance afterwards');
    if (now !== expected) fail(`${why}: balance is ${this.fmt(now)}, expected ${this.fmt(expected)} (${this.fmtDelta(now - expected)})`);
  }

  fmt(minor: bigint): string {
    const d = this.s.decimals;
    const sign = minor < 0n ? '-' : '';
    const abs = minor < 0n ? -minor : minor;
    const base = 10n ** BigInt(d);
    const frac = d ? `.${(abs % base).toString().padStart(d, '0')}` : '';
    return `${sign}${abs / base}${frac} ${this.s.currency}`;
  }

  fmtDelta(minor: bigint): string {
    return `${minor > 0n ? '+' : ''}${this.fmt(minor)}`;
  }
}

// ------------------------------------------------------------ answer helpers

export function is2xx(ex: Exchange): boolean {
  const s = ex.response.status;
  return s !== null && s >= 200 && s < 300;
}

export function show(value: unknown): string {
  if (isLosslessNumber(value)) return value.value;
  const text = jsonText(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** "HTTP 401 {"code":"SIGNATURE_STALE"}" or "no answer (timeout)". */
export function describe(ex: Exchange): string {
  const r = ex.response;
  if (r.status === null) return `no answer (${r.error ?? 'error'})`;
  const text = r.text.length > 200 ? `${r.text.slice(0, 200)}…` : r.text;
  return `HTTP ${r.status}${text ? ` ${text}` : ''}`;
}

export function codeOf(ex: Exchange): string | undefined {
  const j = ex.response.json;
  if (typeof j === 'object' && j !== null && !Array.isArray(j)) {
    const c = (j as Record<string, unknown>)['code'];
    if (typeof c === 'string') return c;
  }
  return undefined;
}

export function objectBody(ex: Exchange, what = ex.label): Record<string, unknown> {
  const j = ex.response.json;
  if (typeof j !== 'object' || j === null || Array.isArray(j)) fail(`${what}: the answer is not a JSON object: ${describe(ex)}`);
  return j as Record<string, unknown>;
}

/** Fails unless the answer has this status (and, when given, one of these codes). */
export function expectStatus(ex: Exchange, status: number, what = ex.label, codes?: string[]): void {
  const ok = ex.response.status === status && (!codes || codes.includes(codeOf(ex) ?? ''));
  if (!ok) fail(`${what}: expected HTTP ${status}${codes ? ` ${codes.join(' or ')}` : ''}, got ${describe(ex)}`);
}

/** A refusal: a 4xx answer (never a 2xx, a 5xx or no answer), optionally with one of these codes. */
export function expectRefusal(ex: Exchange, what = ex.label, o: { status?: number; codes?: string[] } = {}): void {
  const st = ex.response.status;
  const statusOk = o.status !== undefined ? st === o.status : st !== null && st >= 400 && st < 500;
  const codeOk = !o.codes || o.codes.includes(codeOf(ex) ?? '');
  if (!statusOk || !codeOk) {
    const wanted = `${o.status ?? '4xx'}${o.codes ? ` ${o.codes.join(' or ')}` : ''}`;
    fail(`${what}: expected a refusal (HTTP ${wanted}), got ${describe(ex)}`);
  }
}
