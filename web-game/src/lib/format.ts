/**
 * Numbers as the page's language writes them (Intl): the group and decimal separators of the
 * language, applied to exact decimal text (amounts stay BigInt minor units; no float touches
 * them). `setNumberLocale` is called once by the i18n setup.
 */
let group = ',';
let decimal = '.';
let locale = 'en';

export function setNumberLocale(tag: string): void {
  locale = tag;
  const parts = new Intl.NumberFormat(tag, { useGrouping: true }).formatToParts(12345.6);
  group = parts.find((p) => p.type === 'group')?.value ?? ',';
  decimal = parts.find((p) => p.type === 'decimal')?.value ?? '.';
}

export const numberLocale = (): string => locale;

/** "-1234.50" → "-1,234.50" (en), "-1.234,50" (de), "-1.234,50" (es, pt-BR). */
export function localizeDecimal(text: string): string {
  const neg = text.startsWith('-');
  const [int = '0', frac] = (neg ? text.slice(1) : text).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${neg ? '-' : ''}${grouped}${frac !== undefined ? `${decimal}${frac}` : ''}`;
}

/** A time in a list: the time of day when it is today, else the date. */
export function formatShortTime(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = d.toDateString() === now.toDateString();
  return new Intl.DateTimeFormat(locale, today ? { timeStyle: 'medium' } : { dateStyle: 'short' }).format(d);
}

/** A time as the language writes it (date and time, short). */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium' }).format(d);
}

/** Exact decimal text as a field shows it: the language's decimal sign, no grouping ("1,50" in German). */
export function toInput(text: string): string {
  return decimal === '.' ? text : text.replace('.', decimal);
}

/**
 * Typed text back to plain decimal text. Where the language writes a decimal comma, a comma is the
 * decimal sign (dots before it are grouping); text without a comma keeps a dot as the decimal sign,
 * so "1.5" is never read as 15. Elsewhere commas are grouping.
 */
export function fromInput(text: string): string {
  const s = text.trim();
  if (decimal === ',') return s.includes(',') ? s.replace(/\./g, '').replace(',', '.') : s;
  return s.replace(/,/g, '');
}
