/**
 * The game page bundle: `game.html` and its assets under `/game-assets/` (served by the provider,
 * services/provider/src/http/routes/game-page.ts). The build prints the gzipped size of the page's
 * JavaScript and fails above the budget (issue 11: under 200 KB gzipped).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { gzipBudget } from './scripts/gzip-budget.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  plugins: [react(), gzipBudget({ limitBytes: 200 * 1024 })],
  resolve: {
    alias: { '@gp/paytables': path.resolve(here, '../services/game-core/src/games/data') },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'game-assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    rollupOptions: { input: path.resolve(here, 'game.html') },
  },
  server: {
    // `npm run dev -w web-game` next to a provider on :3000
    proxy: { '/api': 'http://127.0.0.1:3000', '/sandbox': 'http://127.0.0.1:3000' },
  },
});
