/**
 * The node flags of the API process (issue 25; docs/performance.md "Issue 25: memory under load").
 * The image's CMD is the production command: the chart and k8s/ run it (their tests compare the
 * container's command with PROVIDER_COMMAND) and the bench's loaded providers run it
 * (services/harness reads the Dockerfile). `npm start` (the embedded default of a developer) runs
 * the same old-generation growth with smaller semi-spaces: its first start stays ≤ 250 MiB.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROVIDER_COMMAND, REPO_ROOT } from './helpers/manifests.js';

const imageFlags = PROVIDER_COMMAND.slice(1, -1);
const scriptOf = (file: string) => (JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as { scripts: { start: string } }).scripts.start;

it('the image runs node on the API entry with flags that bound the young and the old generation', () => {
  expect(PROVIDER_COMMAND[0]).toBe('node');
  expect(PROVIDER_COMMAND.at(-1)).toBe('services/provider/dist/server.js');
  expect(imageFlags.some((f) => /^--max-semi-space-size=\d+$/.test(f))).toBe(true);
  expect(imageFlags.some((f) => /^--heap-growing-percent=\d+$/.test(f))).toBe(true);
});

it('npm start (the root and the provider package) grows the old generation as the image does', () => {
  const root = /&&\s*node((?:\s+--\S+)*)\s+services\/provider\/dist\/server\.js$/.exec(scriptOf('package.json'));
  expect(root).not.toBeNull();
  const flags = root![1]!.trim().split(/\s+/);
  expect(scriptOf('services/provider/package.json')).toBe(['node', ...flags, 'dist/server.js'].join(' '));
  const growth = (fs: string[]) => fs.find((f) => f.startsWith('--heap-growing-percent='));
  expect(growth(flags)).toBe(growth(imageFlags));
});
