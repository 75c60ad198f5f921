/**
 * The one place the page looks up text: `t('bet.win', { amount })` and `errorText(code)`.
 * Keys and interpolation follow i18next, so the languages of issue 12 plug in here.
 */
import { en } from './en';

type Vars = Record<string, string | number>;

let resource: Record<string, unknown> = en;

/** Replaces the active resource (a language pack of the same shape). */
export function setResource(next: Record<string, unknown>): void {
  resource = next;
}

function lookup(key: string): unknown {
  let node: unknown = resource;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

export function t(key: string, vars: Vars = {}): string {
  // i18next plurals: `key_one` / `key_other` when a count is given.
  const plural = typeof vars.count === 'number' ? lookup(`${key}_${new Intl.PluralRules('en').select(vars.count)}`) ?? lookup(`${key}_other`) : undefined;
  const text = plural ?? lookup(key);
  if (typeof text !== 'string') return key;
  return text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => (name in vars ? String(vars[name]) : `{{${name}}}`));
}

export function hasKey(key: string): boolean {
  return typeof lookup(key) === 'string';
}

/** A plain sentence for an error code of CONTRACT.md §2 (never the raw code). */
export function errorText(code: string | undefined): string {
  return code && hasKey(`errors.${code}`) ? t(`errors.${code}`) : t('errors.UNKNOWN');
}
