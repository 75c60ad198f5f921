/** The games (CONTRACT.md §10): registry, per-game rules, Mines and Blackjack round engines. */
export * from './games.js';
export * from './exact.js';
export * from './paytables.js';
export * from './dice.js';
export * from './limbo.js';
export * from './plinko.js';
export * from './keno.js';
export * from './mines.js';
export * from './blackjack-cards.js';
export * from './blackjack.js';
export * from './blackjack-view.js';
export * from './state-schemas.js';
export * from './scripted.js';
export * from './result-schemas.js';
