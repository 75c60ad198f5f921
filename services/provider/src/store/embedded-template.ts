/**
 * The embedded database's first start from a template (issue 14 item 5). Creating a PGlite
 * cluster (initdb inside WebAssembly) and running every migration on it peaks near 870 MiB of RSS
 * and takes most of the first start; a cluster loaded from a tarball skips initdb. So the build
 * makes the template once (`node dist/build-template.js`: an in-memory PGlite, migrated, dumped as
 * `dist/pglite-template.tar.gz`) and a first start with an empty DATA_DIR loads it. Migrations
 * run after the load as on every start: a migration added after the template was made still
 * runs (the template only saves work). Without the file (a source checkout before its build,
 * the tests run from src/) the cluster is created as before.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import knexPkg from 'knex';
import type { Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { migrate } from './migrate.js';

const knex = knexPkg.knex ?? (knexPkg as unknown as typeof knexPkg.knex);
const here = path.dirname(fileURLToPath(import.meta.url));
/** src/store or dist/store → services/provider/dist/pglite-template.tar.gz */
export const TEMPLATE_FILE = path.resolve(here, '../../dist/pglite-template.tar.gz');

/** The knex client on a PGlite instance we made (knex-pglite takes it as `connection.pglite`). */
export function knexOnPglite(pglite: PGlite): Knex {
  return knex({ client: ClientPgLite, dialect: 'postgres', connection: { pglite } } as unknown as Knex.Config);
}

/**
 * PostgreSQL settings of the embedded cluster: 16 MB of shared buffers instead of PGlite's
 * default (the WebAssembly heap holds them; measured: the cluster's peak RSS 362 → 294 MiB). The
 * embedded default serves one developer, not a load (production runs on DATABASE_URL).
 */
const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * The PGlite of `dir`: the existing cluster, or for an empty directory the template's (when
 * `template` names a file that exists), or a new cluster (initdb).
 */
export function openPglite(dir: string, template: string | null = TEMPLATE_FILE): { pglite: PGlite; fromTemplate: boolean } {
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh && template && existsSync(template)) {
    const blob = new Blob([readFileSync(template)], { type: 'application/x-gzip' });
    return { pglite: new PGlite({ dataDir: dir, loadDataDir: blob, startParams: EMBEDDED_START_PARAMS }), fromTemplate: true };
  }
  return { pglite: new PGlite({ dataDir: dir, startParams: EMBEDDED_START_PARAMS }), fromTemplate: false };
}

/** Makes the template: an in-memory cluster with the migrations (`only`: a subset) run, dumped to `file`. */
export async function buildTemplate(file = TEMPLATE_FILE, opts: { only?: (name: string) => boolean } = {}): Promise<string[]> {
  const pglite = new PGlite();
  // initdb first (minutes on a busy machine): knex's 60 s wait for its one connection must not count it
  await pglite.waitReady;
  const db = knexOnPglite(pglite);
  try {
    const ran = await migrate(db, opts);
    const dump = await pglite.dumpDataDir('gzip');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    return ran;
  } finally {
    await db.destroy();
  }
}
