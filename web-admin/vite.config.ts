/**
 * The admin console bundle: `index.html` and its assets under `/admin/assets/`, served by the
 * provider at `/admin/` (services/provider/src/http/routes/admin/admin-page.ts). The form schemas
 * reuse the provider's browser-safe profile schemas and the game core's money and game schemas.
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
    alias: { '@gp/provider-schemas': path.resolve(here, '../services/provider/src/operators/browser-schemas.ts') },
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
