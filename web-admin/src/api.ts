/**
 * The console's client of the admin API: same-origin fetch with the session cookie, the CSRF
 * token on every state-changing request, exact amounts (lossless JSON: a number that a double
 * cannot hold stays its decimal text), and the API's error envelope as ApiError.
 */
import type { ResponsibleGaming } from '@gp/provider-schemas';
import { isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

export type Amount = number | string;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
export const setCsrfToken = (token: string | null) => {
  csrfToken = token;
};

async function ensureCsrf(): Promise<string> {
  if (!csrfToken) {
    const res = await fetch('/api/admin/auth/csrf', { credentials: 'same-origin' });
    csrfToken = ((await res.json()) as { csrfToken: string }).csrfToken;
  }
  return csrfToken;
}

const parseBody = (text: string): unknown => parse(text, undefined, (v) => (isSafeNumber(v) ? Number(v) : v));

/** An amount typed in a form, sent as an exact JSON number. */
export const exact = (text: string) => new LosslessNumber(text.trim());

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = await ensureCsrf();
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : (stringify(body) ?? undefined) });
  const text = await res.text();
  const data = text ? (parseBody(text) as Record<string, unknown>) : {};
  if (!res.ok) {
    if (res.status === 403 && String(data.message ?? '').includes('CSRF')) csrfToken = null;
    throw new ApiError(res.status, String(data.code ?? 'ERROR'), String(data.message ?? res.statusText));
  }
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);

/** A query string of the set values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/* ------------------------------------------------------------------ the API's answers */

export type Role = 'platform_admin' | 'admin' | 'viewer';
export interface Me {
  staff: { staffId: string | null; email: string | null; role: Role; tenantId: string | null; via: 'session' | 'token' };
  tenants: string[];
}

export interface Operator {
  operatorId: string;
  tenantId: string | null;
  currency: string;
  decimals: number;
  callbackBaseUrl: string;
  minBet: Amount;
  maxBet: Amount | null;
  stakeStep: Amount;
  maxPayout: Amount;
  enabledGames: string[];
  theme: { showBalanceInEmbed: boolean };
  allowedEmbedOrigins: string[];
  abandonedRoundPolicy: { afterHours: number; mines: 'cashout' | 'keep_open'; blackjack: 'stand' | 'keep_open' };
  /** issue 27: null when the profile has no rules */
  responsibleGaming?: ResponsibleGaming | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  secretRotatedAt?: string | null;
  previousSecretValidUntil?: string | null;
}

export interface AuditRecord {
  id: string;
  at: string;
  actor: { kind: string; staffId: string | null; email: string | null; ip: string | null; userAgent: string | null };
  action: string;
  tenantId: string | null;
  operatorId: string | null;
  targetType: string;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface RoundRow {
  roundId: string;
  operatorId: string;
  playerRef: string;
  gameType: string;
  currency: string;
  amount: Amount;
  payout: Amount | null;
  status: string;
  createdAt: string;
  settledAt: string | null;
}

export interface CallbackRecord {
  method: string;
  path: string;
  url: string;
  idempotencyKey: string;
  attemptCount: number;
  requestBody: unknown;
  responseBody: unknown;
  statusCode: number | null;
  callbackStatus: 'pending' | 'succeeded' | 'failed';
  errorMessage: string | null;
  createdAt: string;
}

export interface RoundDetail {
  round: {
    roundId: string;
    roundStatus: string;
    bet: { gameType: string; amount: Amount; totalStaked: Amount; currency: string; params: Record<string, unknown>; multiplier: Amount; payout: Amount; won: boolean; operatorId: string; playerRef: string; createdAt: string; settledAt: string | null };
    result: unknown;
    fairness: { serverSeedHash: string | null; clientSeed: string; nonce: number; serverSeed?: string };
    casinoTransactions: { debit: string | null; credit: string | null; rollback: string | null; extraDebits: { kind: string; id: string | null }[] };
    error?: { code: string; message: string | null };
    casinoCallbackAudit?: CallbackRecord[];
  };
  replayUrl: string;
  tenantId: string | null;
}

export interface ReconRow {
  type: string;
  roundId: string;
  operatorId: string;
  playerRef: string;
  gameType: string;
  amount: Amount;
  currency: string;
  casinoTransactionId: string | null;
  idempotencyKey: string;
  status: string;
  createdAt: string;
}

export interface Totals {
  operatorId: string;
  currency: string;
  day: string;
  debits: number;
  stakes: Amount;
  payouts: Amount;
  rollbacks: Amount;
  ggr: Amount;
}

export interface PendingRound {
  roundId: string;
  operatorId: string;
  playerRef: string;
  gameType: string;
  currency: string;
  amount: Amount;
  status: string;
  updatedAt: string;
}

export interface StaffMember {
  staffId: string;
  email: string;
  role: Role;
  tenantId: string | null;
  lockedUntil: string | null;
  lastLoginAt: string | null;
  createdAt: string;
}

export interface Dashboard {
  from: string;
  to: string;
  bucket: 'minute' | 'hour' | 'day';
  betsPerMinute: number;
  rounds: number;
  series: { betsPerMinute: { t: string; value: number }[]; ggr: { t: string; currency: string; value: Amount }[] };
  ggr: { currency: string; value: Amount }[];
  pendingRetries: { operatorId: string; status: string; rounds: number }[];
  callbacks: { operatorId: string; callbacks: number; errors: number; errorRate: number; meanMs: number | null; p95Ms: number | null }[];
  rtp: { gameType: string; currency: string; rounds: number; staked: Amount; paid: Amount; measured: number | null; design: number }[];
}
