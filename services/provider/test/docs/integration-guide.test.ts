/**
 * docs/integration.md: the signature example runs as written (its own BODY, printf and openssl
 * lines, through bash) and gives the signature the guide prints, which is also what the
 * provider's signing code computes; and the guide is linked from the README.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/wallet/signing.js';
import { headingAnchors, inPageLinks } from '../helpers/markdown.js';

const root = new URL('../../../../', import.meta.url);
const guide = readFileSync(new URL('docs/integration.md', root), 'utf8');

function example(): { script: string; expected: string; body: string } {
  const block = /<!-- signature-example[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/signature-example -->/.exec(guide);
  if (!block) throw new Error('docs/integration.md has no signature-example block');
  const lines = block[1]!.trim().split('\n');
  const expected = /^# ([0-9a-f]{64})$/.exec(lines.at(-1)!)?.[1];
  const body = /^BODY='(.*)'$/.exec(lines[0]!)?.[1];
  if (!expected || !body) throw new Error("the example must start with BODY='…' and end with # <signature>");
  return { script: lines.slice(0, -1).join('\n'), expected, body };
}

describe('docs/integration.md', () => {
  it('signature example: openssl reproduces the printed signature', () => {
    const { script, expected } = example();
    const out = execFileSync('bash', ['-c', `set -euo pipefail\n${script}`], { encoding: 'utf8' });
    // OpenSSL 3 prints "SHA2-256(stdin)= <hex>", older ones "(stdin)= <hex>"
    expect(/= ([0-9a-f]{64})\s*$/.exec(out)?.[1]).toBe(expected);
  });

  it("signature example: the provider's signing code gives the same signature", () => {
    const { script, expected, body } = example();
    const printf = /printf 'POST\\n(\/wallet\/[a-z-]+)\\n(\d+)\\n([A-Za-z0-9_-]+)\\n%s' "\$BODY" \| openssl dgst -sha256 -hmac (\S+)/.exec(script);
    expect(printf).not.toBeNull();
    const [, path, timestamp, nonce, secret] = printf!;
    expect(sign(secret!, 'POST', path!, timestamp!, nonce!, body)).toBe(expected);
  });

  it("is self-contained for a casino: names the specification's files only in the clause map, and every in-page link resolves", () => {
    const visible = guide.replace(/<!--[\s\S]*?-->/g, (c) => (/^<!-- \/?clause-map/.test(c) ? c : ''));
    const outsideMap = visible.replace(/<!-- clause-map[\s\S]*?<!-- \/clause-map -->/, '');
    expect(outsideMap).not.toMatch(/SPEC\.md|CONTRACT\.md|OPS-CONTRACT|services\/|\.\.\/shared|npm run wallet-check/);
    // What a casino must implement is in the guide itself: the five endpoints, their fields, the currencies.
    for (const path of ['/wallet/validate-session', '/wallet/balance', '/wallet/debit', '/wallet/credit', '/wallet/rollback'])
      expect(guide).toContain(`| \`${path}\` |`);
    for (const field of ['debitIdempotencyKey', 'casinoTransactionId', 'displayName', 'reason']) expect(guide).toContain(field);
    for (const code of ['USD', 'EUR', 'GBP', 'USDT', 'USDC', 'BTC', 'uBTC', 'ETH', 'LTC', 'DOGE', 'BNB', 'SOL', 'XRP', 'ADA', 'TRX', 'XLM', 'ZEC'])
      expect(guide).toMatch(new RegExp(`\\b${code}\\b`));
    const anchors = headingAnchors(guide);
    const links = inPageLinks(guide);
    expect(links.length).toBeGreaterThan(5);
    for (const a of links) expect(anchors, `#${a}`).toContain(a);
  });

  it("go-live checklist: the casino's work only, consistent with docs/operations.md (the retry jobs and readiness are ours)", () => {
    const checklist = /## 9\. Go-live checklist\n([\s\S]*?)\n## 10\./.exec(guide)![1]!;
    expect(checklist).not.toMatch(/READINESS_OPERATOR_ID|CRON_SECRET|CronJob|concurrencyPolicy|Bearer/);
    expect(checklist).toMatch(/Our side confirmed/);
    const operations = readFileSync(new URL('docs/operations.md', root), 'utf8');
    // operations.md: the retries are our pods' work (the CronJobs an optional fallback), READINESS_OPERATOR_ID stays empty with several casinos.
    expect(operations).toMatch(/Pending credits and rollbacks are retried \*\*by the pods themselves\*\*/);
    expect(operations).toMatch(/several casinos on one install leave it empty/);
  });

  it("has the four sequences (and the free bet's) as Mermaid diagrams and is linked from the README", () => {
    expect(guide.match(/```mermaid\nsequenceDiagram/g)).toHaveLength(5);
    for (const heading of [
      '### A launch',
      '### A settled bet',
      '### A Mines round',
      '### A Blackjack round',
      '### A free bet',
      '## 9. Go-live checklist',
      '## 10. Troubleshooting by error code',
    ]) {
      expect(guide).toContain(heading);
    }
    expect(readFileSync(new URL('README.md', root), 'utf8')).toContain('](docs/integration.md)');
  });
});
