/**
 * The page's languages (issue 12), with i18next: `t('bet.win', { amount })` and
 * `errorText(code)`. The `lang` launch parameter (BCP 47) picks one of SUPPORTED_LANGUAGES (the
 * list the game catalogue publishes, from @gp/game-core): an exact tag, else its base language
 * (`de-AT` → `de`, `pt` → `pt-BR`), else English. Missing keys fall back to English and are
 * recorded in `window.__gpMissingKeys` (the browser test fails on any).
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { SUPPORTED_LANGUAGES, type SupportedLanguage } from '@gp/game-core/games';
import { setNumberLocale } from '../lib/format';
import { de } from './de';
import { en } from './en';
import { es } from './es';
import { ptBR } from './pt-BR';

export { SUPPORTED_LANGUAGES, type SupportedLanguage };

export const RESOURCES: Record<SupportedLanguage, typeof en> = { en, es, 'pt-BR': ptBR, de };

/** The supported language of a BCP 47 tag (case-insensitive), English when none fits. */
export function pickLanguage(tag: string | null | undefined): SupportedLanguage {
  if (!tag) return 'en';
  const wanted = tag.trim().replace(/_/g, '-').toLowerCase();
  const exact = SUPPORTED_LANGUAGES.find((l) => l.toLowerCase() === wanted);
  if (exact) return exact;
  const base = wanted.split('-')[0];
  return SUPPORTED_LANGUAGES.find((l) => l.split('-')[0]?.toLowerCase() === base) ?? 'en';
}

declare global {
  interface Window {
    __gpMissingKeys?: string[];
  }
}

/** Starts i18next in the language of the launch (synchronously: every resource is in the bundle). */
export function setupI18n(tag: string | null | undefined): SupportedLanguage {
  const lng = pickLanguage(tag);
  window.__gpMissingKeys = [];
  void i18next.use(initReactI18next).init({
    resources: Object.fromEntries(Object.entries(RESOURCES).map(([l, r]) => [l, { translation: r }])),
    lng,
    fallbackLng: 'en',
    supportedLngs: [...SUPPORTED_LANGUAGES],
    interpolation: { escapeValue: false },
    initAsync: false,
    returnNull: false,
    saveMissing: true,
    missingKeyHandler: (_lngs, _ns, key) => {
      window.__gpMissingKeys?.push(key);
    },
  });
  setNumberLocale(lng);
  document.documentElement.lang = lng;
  return lng;
}

type Vars = Record<string, string | number>;

export function t(key: string, vars: Vars = {}): string {
  return i18next.t(key, vars);
}

export function hasKey(key: string): boolean {
  return i18next.exists(key);
}

/** A plain sentence for an error code of CONTRACT.md §2 (never the raw code). */
export function errorText(code: string | undefined): string {
  return code && hasKey(`errors.${code}`) ? t(`errors.${code}`) : t('errors.UNKNOWN');
}

export const language = (): string => i18next.language ?? 'en';
