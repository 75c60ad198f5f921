/** The browser tests need the built page (npm run build) and Chromium. */
import { existsSync } from 'node:fs';
import { GAME_HTML } from './paths.js';
import { CHROMIUM } from './browser.js';

export default function setup(): void {
  if (!existsSync(GAME_HTML)) throw new Error(`${GAME_HTML} is missing: run \`npm run build\` first`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM_PATH)`);
}
