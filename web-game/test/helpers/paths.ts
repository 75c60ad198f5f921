import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, '../../..');
export const GAME_HTML = path.join(REPO_ROOT, 'web-game/dist/game.html');
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'docs/screenshots');
