/**
 * Languages (issue 12, item 5): every language of the page has every key of English, no key left
 * in English (but for names and symbols that read the same), a sentence for every error code of
 * CONTRACT.md §2, and the `lang` parameter picks a supported language or falls back to English.
 * (The browser test renders each language and fails on any missing key.)
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_LANGUAGES } from '@gp/game-core/games';
import { ERROR_STATUS } from '../../services/provider/src/errors.js';
import { REPO_ROOT } from './helpers/paths.js';

type Tree = { [key: string]: string | Tree };
const load = async (file: string): Promise<Record<string, unknown>> => import(pathToFileURL(path.join(REPO_ROOT, 'web-game/src/i18n', file)).href);

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    if (typeof v === 'string') out.set(prefix + k, v);
    else for (const [kk, vv] of flatten(v, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}

/** Keys whose text is the same in English and that language: game names, symbols, loan words. */
const SAME_AS_ENGLISH: Record<string, string[]> = {
  common: [
    'games.limbo',
    'games.plinko',
    'games.keno',
    'games.blackjack',
    'bet.half',
    'bet.double',
    'verify.nonce',
    'verify.bytes',
    'blackjack.outcome.blackjack',
  ],
  es: ['autobet.manual'],
  'pt-BR': ['autobet.manual', 'blackjack.dealer'],
  de: ['blackjack.dealer', 'blackjack.hand', 'shield.tabSeeds', 'bets.status', 'autobet.optional'],
};

const files: Record<string, [string, string]> = { en: ['en.ts', 'en'], es: ['es.ts', 'es'], 'pt-BR': ['pt-BR.ts', 'ptBR'], de: ['de.ts', 'de'] };

describe('language packs', () => {
  it('ships the languages the catalogue lists', () => {
    expect([...SUPPORTED_LANGUAGES].sort()).toEqual(Object.keys(files).sort());
  });

  it.each(SUPPORTED_LANGUAGES.filter((l) => l !== 'en'))('%s has every key of English, none left untranslated, the same placeholders', async (lang) => {
    const en = flatten((await load('en.ts')).en as Tree);
    const [file, name] = files[lang]!;
    const pack = flatten((await load(file))[name] as Tree);
    expect([...pack.keys()].sort()).toEqual([...en.keys()].sort());
    const allowed = new Set([...SAME_AS_ENGLISH.common!, ...(SAME_AS_ENGLISH[lang] ?? [])]);
    const untranslated = [...en].filter(([k, v]) => pack.get(k) === v && !allowed.has(k)).map(([k]) => k);
    expect(untranslated).toEqual([]);
    const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const [k, v] of en) expect(vars(pack.get(k) ?? ''), `${lang} ${k}`).toEqual(vars(v));
  });

  it('has a sentence for every error code of CONTRACT.md §2 in every language', async () => {
    for (const [lang, [file, name]] of Object.entries(files)) {
      const errors = ((await load(file))[name] as { errors: Record<string, string> }).errors;
      for (const code of Object.keys(ERROR_STATUS)) expect(errors[code], `${lang} ${code}`).toMatch(/\S/);
    }
  });
});

describe('the lang parameter', () => {
  it('picks an exact tag, else the base language, else English', async () => {
    const { pickLanguage } = (await load('index.ts')) as { pickLanguage(tag: string | null): string };
    expect(pickLanguage('de')).toBe('de');
    expect(pickLanguage('DE-at')).toBe('de');
    expect(pickLanguage('pt-BR')).toBe('pt-BR');
    expect(pickLanguage('pt')).toBe('pt-BR');
    expect(pickLanguage('pt_br')).toBe('pt-BR');
    expect(pickLanguage('es-MX')).toBe('es');
    expect(pickLanguage('fr')).toBe('en');
    expect(pickLanguage('')).toBe('en');
    expect(pickLanguage(null)).toBe('en');
  });
});
