/**
 * docs/ARCHITECTURE.md "Where each rule lives" (issue 24 item 6): every file the rule → file table
 * names exists, so the table cannot send a reader to a file that moved. A cell's first path is
 * from the repository's services/ (`provider/src/...`, `game-core/src/...`), or the root
 * (`migrations/`, `web-game/...`); a short name after it (`amount.ts`, `money-path/opening.ts`)
 * is looked up beside the paths before it in the cell and in the folders above them.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const doc = readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
const table = doc.slice(doc.indexOf('## Where each rule lives'), doc.indexOf('## Patterns a new feature copies'));
const rows = table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| rule'));

/** A backticked token that names a file or folder (not a function, a setting or a code). */
const isPath = (t: string) => /^[\w.<>-]+(\/[\w.<>-]*)*$/.test(t) && (t.includes('/') || /\.(ts|tsx|js|mjs|json|md)$/.test(t));
const fromRoot = (p: string) => (/^(provider|game-core|harness|reference-casino|wallet-check)\//.test(p) ? path.join(ROOT, 'services', p) : path.join(ROOT, p));

/** The folders a short name may be in: the first path's folder and each one above it, up to the root. */
function folders(first: string): string[] {
  const out: string[] = [];
  let dir = first.endsWith('/') ? first.replace(/\/$/, '') : path.dirname(first);
  for (;;) {
    out.push(dir);
    if (dir === ROOT || dir === path.dirname(dir)) return out;
    dir = path.dirname(dir);
  }
}

describe('docs/ARCHITECTURE.md, the rule → file table', () => {
  it('has rows', () => {
    expect(rows.length).toBeGreaterThan(40);
  });

  it('names only files that exist', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const row of rows) {
      const cell = row.split(' | ').slice(1).join(' | ');
      const paths = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter(isPath);
      if (paths.length === 0) continue;
      const seen: string[] = [];
      for (const [i, p] of paths.entries()) {
        const name = p.replace('<game>', 'dice');
        const candidates = i === 0 ? [fromRoot(name)] : [fromRoot(name), ...seen.flatMap(folders).map((d) => path.join(d, name))];
        const found = candidates.find((c) => existsSync(c));
        checked++;
        if (found) seen.push(found);
        else missing.push(`${p} (row: ${row.slice(2, 60)}…)`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(80);
  });

  it('sends the session-game mismatch and the session-start retry to the files that hold them', () => {
    const src = (f: string) => readFileSync(path.join(ROOT, 'services/provider/src', f), 'utf8');
    expect(table).toMatch(/SESSION_GAME_MISMATCH[^\n]*`provider\/src\/sessions\/session-game\.ts`/);
    expect(src('rounds/round-actions.ts')).toMatch(/checkSessionGame\(/);
    expect(table).toMatch(/pending retries[^\n]*`provider\/src\/rounds\/wallet-retry-job\.ts` `retriesOnSessionStart`/);
    expect(src('rounds/wallet-retry-job.ts')).toMatch(/export function retriesOnSessionStart/);
    expect(src('services.ts')).toMatch(/retriesOnSessionStart\(/);
  });
});
