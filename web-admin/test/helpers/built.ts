/** The browser tests need the built console (npm run build) and Chromium. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const ADMIN_HTML = path.join(REPO_ROOT, 'web-admin/dist/index.html');
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'docs/screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default function setup(): void {
  if (!existsSync(ADMIN_HTML)) throw new Error(`${ADMIN_HTML} is missing: run \`npm run build\` first`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM_PATH)`);
}
