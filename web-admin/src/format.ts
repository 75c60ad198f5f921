/** Display helpers: amounts in their currency's decimals, times in the browser's zone, roles and statuses. */
import { CURRENCY_DECIMALS, type CurrencyCode } from '@gp/game-core/money';
import type { Amount, Role } from './api.js';

export const decimalsOf = (currency: string) => CURRENCY_DECIMALS[currency as CurrencyCode] ?? 2;

/** An amount with its currency's decimals and thousands separators (exact: no float arithmetic). */
export function money(value: Amount | null | undefined, currency: string): string {
  if (value === null || value === undefined) return '—';
  const d = decimalsOf(currency);
  let text = typeof value === 'number' ? value.toFixed(d) : value;
  const negative = text.startsWith('-');
  if (negative) text = text.slice(1);
  const [int = '0', frac = ''] = text.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const body = d > 0 ? `${grouped}.${frac.padEnd(d, '0').slice(0, d)}` : grouped;
  return `${negative ? '−' : ''}${body}`;
}

/** The amount as the exact text a form edits (no grouping). */
export function amountText(value: Amount | null | undefined): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'number'
    ? String(value).replace(/^(\d+)e-(\d+)$/, (_m, a: string, b: string) => (Number(a) / 10 ** Number(b)).toFixed(Number(b)))
    : value;
}

const dateTime = new Intl.DateTimeFormat('en-GB', { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
export const when = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—');

export const ROLE_LABEL: Record<Role, string> = { platform_admin: 'Platform admin', admin: 'Casino admin', viewer: 'Casino viewer' };

export const STATUS_TONE: Record<string, 'green' | 'red' | 'amber' | 'gray' | 'blue'> = {
  settled: 'green',
  cashed_out: 'green',
  busted: 'gray',
  succeeded: 'green',
  active: 'blue',
  debit_requested: 'blue',
  credit_pending: 'amber',
  rollback_pending: 'amber',
  pending: 'amber',
  cancelled: 'gray',
  error: 'red',
  failed: 'red',
};

export const short = (id: string, n = 8) => (id.length > n + 2 ? `${id.slice(0, n)}…` : id);

export const pct = (v: number | null | undefined, digits = 2) => (v === null || v === undefined ? '—' : `${v.toFixed(digits)}%`);

/** A status or policy word as the console writes it, in one capitalisation (issue 29): credit_pending → "Credit pending". */
export const statusLabel = (s: string): string => {
  const text = s.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};
