/**
 * What a catalogue and a lobby say about each game (pure, browser-safe): its display name, its
 * kind (settled in one request, or an active round of several), the launch modes, and the
 * languages the game page ships. One list each: the game page imports the same constants.
 */
import type { GameType } from './games.js';

/** The languages of the game page (BCP 47 tags); the catalogue lists them for every game. */
export const SUPPORTED_LANGUAGES = ['en', 'es', 'pt-BR', 'de'] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

/** SPEC.md "What the service does": single (default) and lobby launches. */
export const LAUNCH_MODES = ['single', 'lobby'] as const;

/** settled: one POST /api/bets; active-round: start, actions, close (Mines, Blackjack). */
export type GameKind = 'settled' | 'active-round';

export const GAME_INFO: Readonly<Record<GameType, { name: string; kind: GameKind }>> = {
  dice: { name: 'Dice', kind: 'settled' },
  limbo: { name: 'Limbo', kind: 'settled' },
  plinko: { name: 'Plinko', kind: 'settled' },
  keno: { name: 'Keno', kind: 'settled' },
  mines: { name: 'Mines', kind: 'active-round' },
  blackjack: { name: 'Blackjack', kind: 'active-round' },
};
