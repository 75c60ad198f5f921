/** A Vite plugin: prints the gzipped size of every JavaScript chunk and fails the build above the budget. */
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

export function gzipBudget(opts: { limitBytes: number }): Plugin {
  return {
    name: 'gzip-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      let total = 0;
      const lines: string[] = [];
      for (const file of Object.values(bundle)) {
        if (file.type !== 'chunk') continue;
        const size = gzipSync(file.code, { level: 9 }).length;
        total += size;
        lines.push(`  ${file.fileName}: ${(size / 1024).toFixed(1)} KB gzipped`);
      }
      const summary = `game page JavaScript: ${(total / 1024).toFixed(1)} KB gzipped (budget ${(opts.limitBytes / 1024).toFixed(0)} KB)`;
      console.log(['', ...lines, summary].join('\n'));
      if (total > opts.limitBytes) this.error(summary);
    },
  };
}
