/**
 * The embedded first start from a template (store/embedded-template.ts, issue 14 item 5): an
 * empty DATA_DIR loads the build's migrated cluster instead of running initdb; migrations added
 * after the template was made still run; a directory that holds a cluster is never overwritten.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { buildTemplate } from '../../src/store/embedded-template.js';
import { MIGRATIONS_DIR, pendingMigrations } from '../../src/store/migrate.js';

const work = mkdtempSync(path.join(tmpdir(), 'gp-template-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const migrations = readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.js'))
  .sort();

describe('embedded template', () => {
  it('a template older than the code: the first start loads it and runs the newer migrations; a second start keeps the data', async () => {
    expect(migrations.length).toBeGreaterThan(1);
    const template = path.join(work, 'old-template.tar.gz');
    // a template made before the later migrations existed
    const ran = await buildTemplate(template, { only: (name) => name === migrations[0] });
    expect(ran).toEqual([migrations[0]]);

    const dataDir = path.join(work, 'data');
    const first = await openDatabase({ databaseUrl: undefined, dataDir, embeddedTemplate: template });
    try {
      expect(existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
      const names = await first.db('knex_migrations').orderBy('id').pluck('name');
      expect(names).toEqual(migrations);
      expect(await pendingMigrations(first.db)).toEqual([]);
      expect(await first.db.schema.hasTable('player_balances')).toBe(true); // made by the newer migration
      await first.db.raw('CREATE TABLE kept (v text)');
      await first.db('kept').insert({ v: 'written after the first start' });
    } finally {
      await first.close();
    }

    // the cluster exists now: the template is not loaded again over it
    const second = await openDatabase({ databaseUrl: undefined, dataDir, embeddedTemplate: template });
    try {
      expect(await second.db('kept').pluck('v')).toEqual(['written after the first start']);
    } finally {
      await second.close();
    }
  }, 240_000);
});
