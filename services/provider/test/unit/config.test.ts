import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration (CONTRACT.md §1)', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './.data',
      callbackTimeoutMs: 3000,
      clockSkewSeconds: 300,
      env: 'development',
      production: false,
      demoOperator: true,
    });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
  });
  it('stops with a message naming a bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ CALLBACK_TIMEOUT_MS: '-1' })).toThrow(/CALLBACK_TIMEOUT_MS/);
    expect(() => loadConfig({ NODE_ENV: 'staging' })).toThrow(/NODE_ENV/);
  });
  it('has no demo operator in production unless DEMO_OPERATOR=1', () => {
    const key = 'ab'.repeat(32);
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: key, PUBLIC_BASE_URL: 'https://games.test' }).demoOperator).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: key, PUBLIC_BASE_URL: 'https://games.test', DEMO_OPERATOR: '1' }).demoOperator).toBe(true);
  });
  it('refuses to start in production without SECRET_KEY, saying what it must be (CONTRACT.md §1)', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SECRET_KEY: is required in production; it must be 32 bytes written as 64 hex characters/);
    expect(() => loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'c2hvcnQ=' })).toThrow(/SECRET_KEY: must be 32 bytes written as 64 hex characters/);
    expect(() => loadConfig({ SECRET_KEY: 'zz'.repeat(32) })).toThrow(ConfigError);
  });
});
