/** Runs the knex migrations of the repository's top-level migrations/ folder. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/store or dist/store → the repository root's migrations/. */
export const MIGRATIONS_DIR = path.resolve(here, '../../../../migrations');

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const source: Knex.MigrationSource<string> = {
  async getMigrations() {
    return readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.js'))
      .sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name): Promise<MigrationModule> {
    return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, name)).href)) as MigrationModule;
  },
};

export async function migrate(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource: source });
}
