/** The game page's frame-ancestors (CONTRACT.md §14), production included (the browser tests cover the served headers). */
import { describe, expect, it } from 'vitest';
import { frameAncestors, gamePageCsp } from '../../src/http/routes/game-page.js';
import type { Operator } from '../../src/operators/operator-schema.js';

const op = (allowedEmbedOrigins: string[], enabled = true) => ({ allowedEmbedOrigins, enabled }) as Operator;

describe('frame-ancestors of /game.html', () => {
  it('is exactly the allowed origins when the list is set, in every environment', () => {
    for (const production of [false, true]) {
      expect(frameAncestors(op(['https://casino.example', 'https://m.casino.example:8443']), production)).toBe(
        'https://casino.example https://m.casino.example:8443',
      );
    }
  });
  it('an empty list: any origin outside production, none in production', () => {
    expect(frameAncestors(op([]), false)).toBe('*');
    expect(frameAncestors(op([]), true)).toBe("'none'");
  });
  it('an unknown or disabled operator: none', () => {
    expect(frameAncestors(null, false)).toBe("'none'");
    expect(frameAncestors(op(['https://casino.example'], false), false)).toBe("'none'");
  });
  it('never pastes a stored value that is not a plain origin into the header (issue 23 defect 5a: rows from before the rule)', () => {
    const stored = op([
      'https://casino.example',
      'https://a.example;sandbox',
      'https://b.example; script-src *',
      'https://c.example/path',
      "'unsafe-inline'",
      '*',
      'https://d.example\r\nx: y',
    ]);
    expect(frameAncestors(stored, false)).toBe('https://casino.example');
    expect(frameAncestors(op(['https://a.example;sandbox']), false)).toBe("'none'");
    expect(frameAncestors(op(['https://a.example;sandbox']), true)).toBe("'none'");
  });
  it('the policy allows no inline script and no other framing source', () => {
    const csp = gamePageCsp("'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(csp.endsWith("frame-ancestors 'none'")).toBe(true);
  });
});
