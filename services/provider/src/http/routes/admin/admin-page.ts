/**
 * The admin console's page (issue 13): the `web-admin` workspace built into `web-admin/dist`,
 * served at `/admin/` from the API's own origin (its cookies are SameSite=Strict and its API
 * calls same-origin). Every path under `/admin/` that is not an asset answers the single page
 * (the console routes in the browser); assets go through a route of ours, as the game page's do.
 * Headers: a CSP with no inline script and `frame-ancestors 'none'` (the console is never framed),
 * `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin`, no caching of the page.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';

export const ADMIN_DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../../web-admin/dist');

export const ADMIN_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function adminPageRoutes(app: AppInstance, _s: Services, distDir = ADMIN_DIST_DIR): void {
  let html: Promise<string> | null = null;
  const page = () =>
    (html ??= readFile(path.join(distDir, 'index.html'), 'utf8').catch((err: unknown) => {
      html = null; // built later (npm run build): try again on the next request
      throw err;
    }));

  // `/admin`, `/admin/` and every console path answer the page (the router ignores a trailing slash).
  const serve = async (_request: unknown, reply: FastifyReply) => {
    let body: string;
    try {
      body = await page();
    } catch {
      throw new AppError('NOT_FOUND', 'the admin console is not built (npm run build)');
    }
    return reply
      .header('content-security-policy', ADMIN_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(body);
  };
  app.get('/admin', { config: { auth: 'public' }, schema: { hide: true } }, serve);
  app.get('/admin/*', { config: { auth: 'public' }, schema: { hide: true } }, serve);

  const assets = path.join(distDir, 'assets');
  void app.register(fastifyStatic, { root: assets, serve: false, decorateReply: false });
  app.get('/admin/assets/*', { config: { auth: 'public' }, schema: { hide: true } }, (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    return reply
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', ADMIN_CSP)
      .sendFile(file, assets, { immutable: true, maxAge: '365d', dotfiles: 'deny' });
  });
}
