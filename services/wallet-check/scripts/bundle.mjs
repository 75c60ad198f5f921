#!/usr/bin/env node
/**
 * Build step: the checker as ONE file a casino runs alone, without this monorepo and without
 * `npm install`: dist/wallet-check.mjs (or --outfile <file>), the command line with every dependency inside
 * (@gp/reference-casino's signer, undici, lossless-json), for Node 20 or newer.
 *
 *   node wallet-check.mjs --url … --operator … --secret-file … --token-file … --junit r.xml --pdf r.pdf
 */
import { chmodSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const at = process.argv.indexOf('--outfile');
const out = at > 0 ? path.resolve(process.argv[at + 1]) : path.join(root, 'dist', 'wallet-check.mjs');

await build({
  // From the sources (esbuild strips the types), so the bundle does not wait for tsc.
  entryPoints: [path.join(root, 'src', 'bin.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: false,
  legalComments: 'inline',
  logLevel: 'warning',
  // CommonJS dependencies (undici) call require() for Node's own modules.
  banner: {
    js: `// ${pkg.name} ${pkg.version}: the wallet conformance checker, one file (node wallet-check.mjs --help).\nimport { createRequire as __gpCreateRequire } from 'node:module';\nconst require = __gpCreateRequire(import.meta.url);`,
  },
});
chmodSync(out, 0o755);
console.log(`wallet-check bundle: ${path.relative(process.cwd(), out)} (${(statSync(out).size / 1024).toFixed(0)} KiB)`);
