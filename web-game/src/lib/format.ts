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

/** The language's decimal and group signs ("." and "," in English, "," and "." in German). */
export const separators = (): { decimal: string; group: string } => ({ decimal, group });

/**
 * Typed text read for the page's language (issue 29): the language's decimal sign is the decimal
 * sign; its group sign is accepted only where it cannot be a decimal sign — well-formed groups of
 * three that are followed by the decimal sign or repeated ("1,234.50", "1,000,000" in English;
 * "1.234,50" in German). Anything else with the group sign ("1,5", "1,50", "1,500" in English;
 * "1.5" in German) is ambiguous and refused, never guessed.
 */
export function readTyped(text: string): { text: string } | { problem: 'ambiguous' | 'invalid' } {
  const s = text.trim().replace(/[\s\u00a0\u202f]/g, '');
  if (s === '' || !/^[0-9.,]+$/.test(s)) return { problem: 'invalid' };
  const parts = s.split(decimal);
  if (parts.length > 2) return { problem: 'invalid' };
  const [int = '', frac] = parts;
  if (frac !== undefined && frac.includes(group)) return { problem: 'ambiguous' };
  if (!int.includes(group)) return { text: frac === undefined ? int : `${int || '0'}.${frac}` };
  const grp = group === '.' ? '\\.' : group;
  const wellFormed = new RegExp(`^\\d{1,3}(${grp}\\d{3})+$`).test(int);
  const groups = int.split(group).length - 1;
  if (!wellFormed || (frac === undefined && groups === 1)) return { problem: 'ambiguous' };
  const digits = int.split(group).join('');
  return { text: frac === undefined ? digits : `${digits}.${frac}` };
}

/** Typed text back to plain decimal text ("" when it is not a number or its separator is ambiguous: see readTyped). */
export function fromInput(text: string): string {
  const r = readTyped(text);
  return 'text' in r ? r.text : '';
}
