/**
 * The admin console bundle: `index.html` and its assets under `/admin/assets/`, served by the
 * provider at `/admin/` (services/provider/src/http/routes/admin/admin-page.ts). The form schemas
 * reuse the provider's browser-safe profile schemas and the game core's money and game schemas; the
 * round page's board reuses the game page's board model.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/admin/',
  plugins: [react()],
  resolve: {
    alias: {
      '@gp/provider-schemas': path.resolve(here, '../services/provider/src/operators/browser-schemas.ts'),
      // what a round's board shows, shared with the game page's RoundBoard (pure, no imports)
      '@gp/round-board': path.resolve(here, '../web-game/src/components/round-board-model.ts'),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 900,
  },
  server: {
    // `npm run dev -w web-admin` next to a provider on :3000
    proxy: { '/api': 'http://127.0.0.1:3000', '/game.html': 'http://127.0.0.1:3000' },
  },
});
