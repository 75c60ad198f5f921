/**
 * The reference casino's control API over HTTP (services/reference-casino README "Control API"):
 * players, launch tokens, faults, the ledger and the request log. Amounts of the ledger are read
 * losslessly and converted to BigInt minor units.
 */
import { isLosslessNumber, parse } from 'lossless-json';
import type { FaultRule } from '@gp/reference-casino';
import { request } from './client.js';

export interface LedgerTx {
  casinoTransactionId: string;
  type: 'debit' | 'credit' | 'rollback';
  operatorId: string;
  playerRef: string;
  roundId: string;
  gameType: string;
  idempotencyKey: string;
  debitIdempotencyKey?: string;
  amount: bigint;
  currency: string;
  balanceAfter: bigint;
  time: string;
}

export interface CasinoRequest {
  /** When the casino answered (or dropped) it. */
  time: string;
  /** When it arrived. */
  receivedAt: string;
  method: string;
  path: string;
  operatorId?: string;
  idempotencyKey?: string;
  status: number | null;
  code?: string;
  fault?: string;
}

/** Decimal text → minor units (exact). */
export function toMinor(text: string, decimals: number): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`not a decimal number: ${text}`);
  const [, sign, int, frac = '', exp] = m;
  const digits = int! + frac;
  // value = digits × 10^(point − digits.length); minor = value × 10^decimals
  const k = int!.length + Number(exp ?? 0) + decimals - digits.length;
  let out: string;
  if (k >= 0) out = digits + '0'.repeat(k);
  else {
    const cut = Math.max(0, digits.length + k);
    if (/[1-9]/.test(digits.slice(cut))) throw new Error(`${text} has more than ${decimals} decimals`);
    out = digits.slice(0, cut);
  }
  const v = BigInt(out || '0');
  return sign === '-' ? -v : v;
}

/** Minor units → decimal text of the currency (exact). */
export function fromMinor(minor: bigint, decimals: number): string {
  const neg = minor < 0n;
  const s = (neg ? -minor : minor).toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? s : `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
  return neg ? `-${text}` : text;
}

export class CasinoControl {
  constructor(
    public readonly url: string,
    /** currency → decimals */
    private readonly decimals: Record<string, number>,
  ) {}

  private async call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
    const res = await request(this.url, method, path, body);
    if (res.status < 200 || res.status >= 300) throw new Error(`casino ${method} ${path}: ${res.status} ${res.error ?? res.text.slice(0, 300)}`);
    return res;
  }

  async createPlayer(playerRef: string, currency: string, balance: string): Promise<void> {
    await this.call('POST', '/_control/players', { playerRef, displayName: `Harness ${playerRef}`, currency, balance });
  }

  async launchToken(playerRef: string, operatorId: string): Promise<string> {
    const res = await this.call('POST', '/_control/launch-tokens', { playerRef, operatorId });
    return String(res.body.launchToken);
  }

  async setFaults(rules: FaultRule[], seed: number): Promise<void> {
    await this.call('PUT', '/_control/faults', { rules, seed });
  }

  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/_control/faults');
  }

  async faults(): Promise<{ rule: FaultRule; hits: number }[]> {
    const res = await this.call('GET', '/_control/faults');
    return res.body.faults as { rule: FaultRule; hits: number }[];
  }

  async balance(playerRef: string, currency: string): Promise<bigint> {
    const res = await request(this.url, 'GET', `/_control/balance/${encodeURIComponent(playerRef)}?currency=${currency}`);
    if (res.status !== 200) throw new Error(`casino balance of ${playerRef}: ${res.status} ${res.text}`);
    return toMinor(exactField(res.text, 'balance'), this.decimalsOf(currency));
  }

  async ledger(): Promise<LedgerTx[]> {
    const res = await this.call('GET', '/_control/ledger');
    // amounts as their exact text: quoted before parsing (fast on a ledger of many MB, and exact)
    const text = res.text.replace(/"(amount|balanceAfter)":(-?[0-9][0-9.eE+-]*)/g, '"$1":"$2"');
    const doc = JSON.parse(text) as { transactions: Record<string, unknown>[] };
    return doc.transactions.map((t) => {
      const currency = String(t.currency);
      const d = this.decimalsOf(currency);
      return {
        ...(t as unknown as LedgerTx),
        casinoTransactionId: String(t.casinoTransactionId),
        amount: toMinor(String(t.amount), d),
        balanceAfter: toMinor(String(t.balanceAfter), d),
      };
    });
  }

  async requests(): Promise<CasinoRequest[]> {
    const res = await this.call('GET', '/_control/requests');
    return (JSON.parse(res.text) as { requests: CasinoRequest[] }).requests;
  }

  async clearRequests(): Promise<void> {
    await this.call('DELETE', '/_control/requests');
  }

  decimalsOf(currency: string): number {
    const d = this.decimals[currency];
    if (d === undefined) throw new Error(`no decimals for ${currency}`);
    return d;
  }
}

/** The exact text of a top-level number field of a JSON document. */
function exactField(text: string, field: string): string {
  const doc = parse(text, null, (s) => s) as Record<string, unknown>;
  const v = doc[field];
  if (typeof v === 'string') return v;
  if (isLosslessNumber(v)) return v.toString();
  throw new Error(`no number ${field} in ${text.slice(0, 200)}`);
}
