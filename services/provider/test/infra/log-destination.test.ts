/**
 * The log destination (infra/log-destination.ts): the lines of one turn of the event loop written
 * together, in order, after that turn's callbacks; nothing kept back at an exit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { turnBatchedDestination } from '../../src/infra/log-destination.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the log destination', () => {
  it("writes a turn's lines together, in order, once the turn's callbacks have run", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gp-log-')), 'out.log');
    const dest = turnBatchedDestination(openSync(file, 'w'));
    dest.write('{"n":1}\n');
    dest.write('{"n":2}\n');
    expect(readFileSync(file, 'utf8')).toBe('');
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    dest.write('{"n":3}\n');
    dest.flush();
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  });

  it('writes what it kept when the process exits at once (process.exit in the same turn)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-log-'));
    const built = path.resolve(here, '../../dist/infra/log-destination.js');
    if (!existsSync(built)) throw new Error('dist/infra/log-destination.js is missing: run npm run build');
    const script = path.join(dir, 'exit.mjs');
    writeFileSync(
      script,
      `import { turnBatchedDestination } from ${JSON.stringify(built)};
       const d = turnBatchedDestination(1);
       for (let i = 0; i < 3; i++) d.write('line ' + i + '\\n');
       process.exit(0);`,
    );
    const out = execFileSync(process.execPath, [script], { encoding: 'utf8' });
    expect(out).toBe('line 0\nline 1\nline 2\n');
  });
});
