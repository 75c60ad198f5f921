/**
 * The core builds for the browser (docs/ARCHITECTURE.md): bundled for `platform: browser`, with
 * no Node built-in reachable from any entry, so the game page's verifier runs this very code.
 */
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the browser build', () => {
  it('bundles every entry for the browser without a Node built-in', async () => {
    const result = await build({
      entryPoints: ['src/index.ts', 'src/money/index.ts', 'src/fairness/index.ts', 'src/games/index.ts'].map((e) => path.join(root, e)),
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      outdir: '/tmp/game-core-browser',
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((i) => i.startsWith('node:') || /\/(crypto|buffer|fs)\b/.test(i))).toEqual([]);
    const { floats } = await import('../src/fairness/stream.js');
    expect(floats('18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159', 'bb62964774', 1, 1)[0]).toBeCloseTo(0.771740999306, 10);
  });
});
