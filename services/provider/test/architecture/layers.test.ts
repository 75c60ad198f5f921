/**
 * The dependency direction docs/ARCHITECTURE.md describes, checked on the code: a module imports
 * only from its own layer or the ones below it, no import circle exists, only the money path
 * (rounds/money-path/callbacks.ts) sends a money callback, no source file is longer than 450 lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Bottom to top: a layer may import from itself and every layer before it. */
export const LAYERS: { name: string; match: (file: string) => boolean }[] = [
  { name: 'catalogue and configuration', match: (f) => f === 'errors.ts' || f === 'config.ts' },
  { name: 'infra', match: (f) => f.startsWith('infra/') },
  { name: 'store', match: (f) => f.startsWith('store/') },
  { name: 'operators', match: (f) => f.startsWith('operators/') },
  { name: 'staff', match: (f) => f.startsWith('staff/') },
  { name: 'wallet', match: (f) => f.startsWith('wallet/') },
  { name: 'sessions', match: (f) => f.startsWith('sessions/') },
  { name: 'rounds', match: (f) => f.startsWith('rounds/') },
  { name: 'webhooks', match: (f) => f.startsWith('webhooks/') },
  { name: 'composition', match: (f) => f === 'services.ts' },
  { name: 'http', match: (f) => f.startsWith('http/') },
  { name: 'entries', match: (f) => !f.includes('/') },
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

const rel = (full: string) => path.relative(SRC, full).split(path.sep).join('/');
const layerOf = (file: string) => LAYERS.findIndex((l) => l.match(file));

/** The project files a module imports (relative specifiers, type-only imports included). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)) {
    out.push(rel(path.resolve(path.dirname(path.join(SRC, file)), m[1]!.replace(/\.js$/, '.ts'))));
  }
  return out;
}

const all = files(SRC).map(rel).sort();
const graph = new Map(all.map((f) => [f, importsOf(f)]));

describe('the layers of services/provider/src', () => {
  it('places every module in a layer', () => {
    for (const f of all) expect(layerOf(f), f).toBeGreaterThanOrEqual(0);
  });

  it('has no import that climbs from a lower layer to a higher one', () => {
    const climbs: string[] = [];
    for (const [file, imports] of graph) {
      for (const target of imports) {
        if (layerOf(target) > layerOf(file)) climbs.push(`${file} → ${target} (${LAYERS[layerOf(file)]!.name} → ${LAYERS[layerOf(target)]!.name})`);
      }
    }
    expect(climbs).toEqual([]);
  });

  it('has no import circle', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const f of all) visit(f, []);
    expect(circles).toEqual([]);
  });

  it('sends money callbacks from the money path only, and validate-session and balance from sessions only', () => {
    const callers = all.filter((f) => /\bwallet\.call\(/.test(readFileSync(path.join(SRC, f), 'utf8')));
    expect(callers).toEqual(['rounds/money-path/callbacks.ts', 'sessions/sessions.ts']);
    const sessions = readFileSync(path.join(SRC, 'sessions/sessions.ts'), 'utf8');
    expect(sessions).not.toMatch(/\/wallet\/(debit|credit|rollback)/);
  });

  it('keeps every SQL statement on rounds and wallet_callbacks in rounds/round-store/', () => {
    const writers = all.filter(
      (f) => !f.startsWith('rounds/round-store/') && /\(\s*'(rounds|wallet_callbacks)'\s*\)/.test(readFileSync(path.join(SRC, f), 'utf8')),
    );
    expect(writers).toEqual([]);
  });

  it('writes each table from one module (issue 24 item 3)', () => {
    // The module of a file: its folder, and round-store/ as one module of its own.
    const moduleOf = (f: string) => (f.startsWith('rounds/round-store/') ? 'rounds/round-store' : f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : f);
    const writers = new Map<string, Set<string>>();
    for (const f of all) {
      const text = readFileSync(path.join(SRC, f), 'utf8');
      const tables = new Set<string>();
      for (const m of text.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z_]+)/g)) tables.add(m[1]!);
      for (const m of text.matchAll(
        /\(\s*'([a-z_]+)'\s*\)(?:\s*\.[a-zA-Z]+\([^()]*(?:\([^()]*\)[^()]*)*\))*?\s*\.(?:insert|update|del|delete|increment|decrement)\(/g,
      ))
        tables.add(m[1]!);
      for (const t of tables) writers.set(t, new Set([...(writers.get(t) ?? []), moduleOf(f)]));
    }
    // Named exceptions (docs/ARCHITECTURE.md "Who writes which table"): the hot path bumps a seed
    // pair's nonce and stores the balance a debit reported in the statement that opens the round.
    const shared: Record<string, string[]> = { seed_pairs: ['rounds/round-store', 'store'], player_balances: ['rounds/round-store', 'sessions'] };
    const many = [...writers]
      .filter(([t, mods]) => mods.size > 1 && [...mods].sort().join() !== (shared[t] ?? []).sort().join())
      .map(([t, mods]) => `${t}: ${[...mods].sort().join(', ')}`);
    expect(many).toEqual([]);
    expect([...writers.get('idempotency_records')!]).toEqual(['rounds/round-store']);
  });

  it('keeps every source file under 450 lines (one obvious home for each step, issue 24)', () => {
    const long = all.filter((f) => readFileSync(path.join(SRC, f), 'utf8').split('\n').length > 450);
    expect(long).toEqual([]);
  });

  it("writes every query's LIMIT into its text (store/db.ts LIMIT_IN_TEXT): a generic plan does not know a bound one", () => {
    // every connection plans generically (store/db.ts); a bound LIMIT is planned as a tenth of the table
    const bound = all.flatMap((f) => {
      const text = readFileSync(path.join(SRC, f), 'utf8');
      const knexLimits = [...text.matchAll(/\.limit\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g)].filter((m) => !m[1]!.includes('LIMIT_IN_TEXT'));
      const rawLimits = [...text.matchAll(/\bLIMIT \?/g)];
      return [...knexLimits, ...rawLimits].map((m) => `${f}: ${m[0]}`);
    });
    expect(bound).toEqual([]);
  });
});
