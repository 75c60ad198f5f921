/**
 * Field rules of an operator-currency profile that the admin console's forms use as they are
 * (web-admin imports this file and operator-schema.ts through its `@gp/provider-schemas` alias):
 * zod only, no Node built-ins.
 */
import { z } from 'zod';

export const operatorIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only');

/** The casino a profile belongs to (CONTRACT.md §7 `tenantId`). */
export const tenantIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only');

/**
 * An embed origin (CONTRACT.md §14): `scheme://host[:port]` as the URL standard serialises it.
 * The scheme and host's case and a default port are normalised (`HTTPS://Casino.Example:443` is
 * stored as `https://casino.example`); anything else that differs from the serialised origin is
 * refused: a path (a trailing slash too), query, fragment, user info, whitespace, a wildcard, `;`,
 * `,`, quotes, percent-escapes, a host in Unicode (give its `xn--` form) or an IPv6 literal — the
 * value goes into the game page's CSP `frame-ancestors`, whose host-source grammar allows letters,
 * digits, `-` and `.` only (issue 23 defect 5a: `https://a.example;sandbox` added a directive).
 */
export const originSchema = z
  .string()
  .max(300)
  .transform((v, ctx) => {
    const origin = embedOrigin(v);
    if (origin === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an origin such as https://casino.example (scheme://host[:port] only: no path, no trailing slash, no wildcard, no ; or spaces)',
      });
      return z.NEVER;
    }
    return origin;
  });

/** A serialised http(s) origin whose host is a DNS name or IPv4 address: safe to put in a CSP source list as it is. */
const PLAIN_ORIGIN = /^https?:\/\/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::[1-9][0-9]{0,4})?$/;

/** Is this (stored) value a plain serialised origin? The game page checks every value again before it builds the header. */
export const isPlainOrigin = (v: string) => v.length <= 300 && PLAIN_ORIGIN.test(v);

export function embedOrigin(v: string): string | null {
  if (!/^https?:\/\/[A-Za-z0-9.:-]+$/i.test(v)) return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return null;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.pathname !== '/' || u.search || u.hash) return null;
  const origin = u.origin;
  if (!isPlainOrigin(origin)) return null;
  // What was written must be that origin, but for the case and a default port.
  const written = v.toLowerCase();
  const defaultPort = u.protocol === 'https:' ? ':443' : ':80';
  return written === origin || written === origin + defaultPort ? origin : null;
}
