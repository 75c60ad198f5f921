/**
 * @gp/game-core: the pure core the provider and the game page share — money in exact minor
 * units (money/), the provably fair byte stream, seeds and verification (fairness/), and the
 * rules of the six games (games/). No I/O, no clock, no randomness but what is passed in, no
 * Node built-ins: it runs the same in the browser.
 */
export * from './errors.js';
export * from './money/index.js';
export * from './fairness/index.js';
export * from './games/index.js';
