/** Provable fairness (CONTRACT.md §9): the HMAC byte stream and its floats, seeds, verification. */
export * from './stream.js';
export * from './seeds.js';
export * from './verify.js';
export * from './round-check.js';
export * from './prize-drop.js';
