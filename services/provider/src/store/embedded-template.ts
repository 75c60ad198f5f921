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
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
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
const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=4MB'];

/**
 * The PGlite of `dir`: the existing cluster, or for an empty directory the template's (when
 * `template` names a file that exists), or a new cluster (initdb). The template is unpacked into
 * `dir` by a streaming reader before PGlite opens it as an existing cluster: PGlite's own
 * `loadDataDir` holds the gzip, the 39 MiB tar and the files it writes in memory at once
 * (measured: the first start's peak RSS 280 MiB for the cluster alone, against 173 MiB for a
 * cluster on disk; issue 25).
 */
export async function openPglite(dir: string, template: string | null = TEMPLATE_FILE): Promise<{ pglite: PGlite; fromTemplate: boolean }> {
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  const fromTemplate = fresh && template !== null && existsSync(template);
  if (fromTemplate) await unpackTar(template, dir);
  return { pglite: new PGlite({ dataDir: dir, startParams: EMBEDDED_START_PARAMS }), fromTemplate };
}

/**
 * Unpacks a gzipped tar (PGlite's `dumpDataDir`: ustar, regular files and directories) into `dir`,
 * one 512-byte block at a time. A partial unpack (the process stopped) leaves no PG_VERSION, the
 * file written last, so the next start unpacks again.
 */
export async function unpackTar(file: string, into: string): Promise<void> {
  const dir = path.resolve(into);
  mkdirSync(dir, { recursive: true });
  let pending: Buffer = Buffer.alloc(0);
  let out: { fd: number; left: number; pad: number } | null = null;
  let skip = 0;
  let versionFile = false;
  const inside = (name: string) => {
    const target = path.resolve(dir, name.replace(/^\/+/, ''));
    if (target !== dir && !target.startsWith(dir + path.sep)) throw new Error(`template entry ${name} is outside the data directory`);
    return target;
  };
  for await (const chunk of createReadStream(file).pipe(createGunzip()) as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let at = 0;
    while (true) {
      if (skip > 0) {
        const n = Math.min(skip, pending.length - at);
        at += n;
        skip -= n;
        if (skip > 0) break;
      }
      if (out) {
        const n = Math.min(out.left, pending.length - at);
        if (n > 0) writeSync(out.fd, pending, at, n);
        at += n;
        out.left -= n;
        if (out.left > 0) break;
        closeSync(out.fd);
        skip = out.pad;
        out = null;
        continue;
      }
      if (pending.length - at < 512) break;
      const header = pending.subarray(at, at + 512);
      at += 512;
      if (header.every((b) => b === 0)) continue; // the end blocks
      const field = (from: number, len: number) =>
        header
          .subarray(from, from + len)
          .toString('utf8')
          .replace(/\0.*$/s, '');
      const name = (field(345, 155) ? `${field(345, 155)}/` : '') + field(0, 100);
      const size = parseInt(field(124, 12).trim() || '0', 8);
      const type = String.fromCharCode(header[156] ?? 48);
      const pad = (512 - (size % 512)) % 512;
      if (type === '5') {
        mkdirSync(inside(name), { recursive: true });
        skip = size + pad;
      } else if (type === '0' || type === '\0') {
        const target = inside(name);
        mkdirSync(path.dirname(target), { recursive: true });
        // PG_VERSION is written under another name and renamed last: its presence marks a complete unpack
        const versioned = target === path.join(dir, 'PG_VERSION');
        out = { fd: openSync(versioned ? `${target}.partial` : target, 'w', 0o600), left: size, pad };
        if (versioned) versionFile = true;
      } else {
        skip = size + pad; // links and the like: PGlite's dump has none
      }
    }
    pending = pending.subarray(at);
  }
  if (out) throw new Error(`template ${file} ends inside a file`);
  if (versionFile) renameSync(path.join(dir, 'PG_VERSION.partial'), path.join(dir, 'PG_VERSION'));
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
