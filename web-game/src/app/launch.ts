/**
 * The launch URL (SPEC.md "Launch URL"): `/game.html?operatorId&game&token&mode&embed&showBalance&fill`,
 * plus issue 12's `lang` (BCP 47: en, es, pt-BR, de; others fall back to English) and
 * `replay=<roundId>` (a stored round, read-only, without a session).
 */
export const GAME_TYPES = ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'] as const;
export type GameType = (typeof GAME_TYPES)[number];
export const isGameType = (v: unknown): v is GameType => typeof v === 'string' && (GAME_TYPES as readonly string[]).includes(v);

export interface Launch {
  operatorId: string | null;
  /** The game asked for (the first one shown in a lobby); null when absent. */
  game: string | null;
  token: string | null;
  mode: 'single' | 'lobby';
  embed: boolean;
  fill: boolean;
  /** The `showBalance` override: true, false, or null when absent or not one of SPEC.md's values. */
  showBalance: boolean | null;
  /** the `lang` parameter as given (i18n/index.ts picks the language) */
  lang: string | null;
  /** `replay=<roundId>`: show that stored round read-only instead of a game */
  replay: string | null;
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

export function parseBool(v: string | null): boolean | null {
  if (v === null) return null;
  const s = v.trim().toLowerCase();
  if (TRUE.includes(s)) return true;
  if (FALSE.includes(s)) return false;
  return null;
}

export function parseLaunch(search: string): Launch {
  const q = new URLSearchParams(search);
  const text = (name: string) => {
    const v = q.get(name);
    return v && v.trim() !== '' ? v.trim() : null;
  };
  return {
    operatorId: text('operatorId'),
    game: text('game'),
    token: text('token'),
    mode: q.get('mode') === 'lobby' ? 'lobby' : 'single',
    embed: q.get('embed') === '1',
    fill: q.get('fill') === '1',
    showBalance: parseBool(q.get('showBalance')),
    lang: text('lang'),
    replay: text('replay'),
  };
}

/** SPEC.md: showBalance overrides; when omitted the balance shows unless theme.showBalanceInEmbed is exactly false (in an embed). */
export function balanceVisible(launch: Launch, theme: { showBalanceInEmbed?: unknown } | undefined): boolean {
  if (launch.showBalance !== null) return launch.showBalance;
  if (launch.embed && theme?.showBalanceInEmbed === false) return false;
  return true;
}

/** Whether the provider runs in production (written by the server into the page). */
export function isProduction(): boolean {
  return document.querySelector('meta[name="gp-env"]')?.getAttribute('content') === 'production';
}
