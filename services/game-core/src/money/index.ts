export * from './currencies.js';
export * from './amount.js';
export * from './limits.js';
export * from './schemas.js';
