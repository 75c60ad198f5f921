import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/infra/secret-box.js';

describe('the secret box (infra/secret-box.ts)', () => {
  const key = randomBytes(32);

  it('opens what it sealed, just sealed or long ago, and in another box with the same key', () => {
    const box = createSecretBox(key);
    const first = box.seal('{"launchToken":"lt-0123456789","amount":100}');
    expect(box.open(first)).toBe('{"launchToken":"lt-0123456789","amount":100}');
    // past the memo of recent seals: decrypted
    for (let i = 0; i < 600; i++) box.seal(`filler ${i}`);
    expect(box.open(first)).toBe('{"launchToken":"lt-0123456789","amount":100}');
    expect(createSecretBox(key).open(first)).toBe('{"launchToken":"lt-0123456789","amount":100}');
  });

  it('seals the same text differently each time and never holds it in clear', () => {
    const box = createSecretBox(key);
    const a = box.seal('secret-value-0123456789');
    const b = box.seal('secret-value-0123456789');
    expect(a).not.toBe(b);
    expect(a).not.toContain('secret-value');
  });

  it('refuses a changed sealed text, even one it sealed a moment ago', () => {
    const box = createSecretBox(key);
    const sealed = box.seal('{"amount":100}');
    const [v, iv, tag, body] = sealed.split(':');
    const flipped = Buffer.from(body!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64')].join(':'))).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
  });
});
