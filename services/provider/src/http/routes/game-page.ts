/**
 * The game page (SPEC.md "Launch URL", CONTRACT.md §14): `/game.html` and its assets, built by
 * the `web-game` workspace into `web-game/dist`, served from the API's own origin.
 *
 * Headers of the page: a Content-Security-Policy with no inline script whose `frame-ancestors`
 * is the `allowedEmbedOrigins` of the operator named by `?operatorId=` (nothing else when the
 * list is set; an empty list is any origin outside production and `'none'` in production; an
 * unknown operator gets `'none'` and the page shows its "unknown operator" screen),
 * `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` (the URL carries the launch
 * token) and `Cache-Control: no-store`. The page learns whether it runs in production from a
 * `<meta name="gp-env">` written here (an empty origin list means "no messages" there).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import type { Operator } from '../../operators/operator-schema.js';
import { isPlainOrigin } from '../../operators/profile-fields.js';

/** `web-game/dist` of the repository (the same depth from `src/` and `dist/`). */
export const GAME_DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../web-game/dist');
export const GAME_ASSETS_PREFIX = '/game-assets/';

/**
 * The `frame-ancestors` sources of the page for this operator (CONTRACT.md §14). Every stored
 * origin is checked again here (a row written before the origin rule, or by hand): only a plain
 * serialised origin reaches the header; a list with none left is `'none'`, never "any".
 */
export function frameAncestors(op: Operator | null, production: boolean): string {
  if (!op || !op.enabled) return "'none'";
  if (op.allowedEmbedOrigins.length > 0) {
    const safe = op.allowedEmbedOrigins.filter(isPlainOrigin);
    return safe.length > 0 ? safe.join(' ') : "'none'";
  }
  return production ? "'none'" : '*';
}

export function gamePageCsp(ancestors: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

export function gamePageRoutes(app: AppInstance, s: Services, distDir = GAME_DIST_DIR): void {
  let html: Promise<string> | null = null;
  const page = () =>
    (html ??= readFile(path.join(distDir, 'game.html'), 'utf8')
      .then((text) => text.replace(/(<meta name="gp-env" content=")[^"]*(")/, `$1${s.config.production ? 'production' : 'development'}$2`))
      .catch((err: unknown) => {
        html = null; // built later (npm run build): try again on the next request
        throw err;
      }));

  app.get('/game.html', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    // Only a well-formed operator id is looked up (the admin PUT allows no other); anything else is the unknown-operator screen.
    const operatorId = typeof query.operatorId === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(query.operatorId) ? query.operatorId : null;
    const op = operatorId ? await s.operators.get(s.db, operatorId) : null;
    let body: string;
    try {
      body = await page();
    } catch {
      throw new AppError('NOT_FOUND', 'the game page is not built (npm run build)');
    }
    return reply
      .header('content-security-policy', gamePageCsp(frameAncestors(op, s.config.production)))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(body);
  });

  // The assets, through a route of ours (so it declares its rule like every route); @fastify/static only sends the files.
  const assets = path.join(distDir, GAME_ASSETS_PREFIX);
  void app.register(fastifyStatic, { root: assets, serve: false });
  app.get(`${GAME_ASSETS_PREFIX}*`, { config: { auth: 'public' }, schema: { hide: true } }, (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    return (
      reply
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        // Vite names every asset by its content hash: cache for good.
        .sendFile(file, assets, { immutable: true, maxAge: '365d', dotfiles: 'deny' })
    );
  });
}
