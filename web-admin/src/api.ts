/**
 * The console's client of the admin API: same-origin fetch with the session cookie, the CSRF
 * token on every state-changing request, exact amounts (lossless JSON: a number that a double
 * cannot hold stays its decimal text), and the API's error envelope as ApiError.
 */
import type { components, operations } from '@gp/api-types';
import { isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

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

/*
 * The answers are the provider's contract: types generated from /openapi.json
 * (services/provider/api/openapi-types.ts, `@gp/api-types`; issue 24 item 4), so an answer that
 * changes breaks the console's build, not the console.
 */
type Schemas = components['schemas'];
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON answer of an operation (its 200, else its 201). */
export type Answer<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R }
  ? Json<R>
  : operations[Op]['responses'] extends { 201: infer R }
    ? Json<R>
    : never;

/** An exact amount: a JSON number, or its decimal text when a double cannot hold it. */
export type Amount = Schemas['Amount'];
export type Me = Answer<'adminMe'>;
export type Role = Me['staff']['role'];
export type Operator = Answer<'getOperator'>;
export type AuditRecord = Answer<'listConfigChanges'>['records'][number];
export type RoundRow = Answer<'searchRounds'>['rounds'][number];
export type RoundDetail = Answer<'adminRound'>;
export type CallbackRecord = NonNullable<RoundDetail['round']['casinoCallbackAudit']>[number];
export type ReconRow = Answer<'adminReconciliation'>['rows'][number];
export type Totals = Answer<'reconciliationTotals'>['totals'][number];
export type PendingRound = Answer<'pendingRounds'>['rounds'][number];
export type StaffMember = Answer<'listStaff'>['staff'][number];
export type Dashboard = Answer<'adminDashboard'>;
