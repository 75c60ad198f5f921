/**
 * The public base URL of links the service answers (launch URLs, thumbnails; issue 23 defect 5c):
 * PUBLIC_BASE_URL (required in production), else the address the server listens on — never the
 * request's Host or X-Forwarded-Host header, which a client writes (and /api/games is cached
 * publicly: one forged Host would be served to everyone behind the cache).
 */
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';

export function publicBaseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>, server?: { address(): AddressInfo | string | null }): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const bound = server?.address();
  const listening = bound !== null && bound !== undefined && typeof bound === 'object';
  const raw = listening ? bound.address : config.host;
  const port = listening ? bound.port : config.port;
  const host = raw === '0.0.0.0' || raw === '::' || raw === '' ? '127.0.0.1' : raw;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
