/**
 * What a report may show: requests and answers with the operator secret, launch tokens and
 * signatures masked (SPEC.md: shared secrets, launch tokens and request signatures are never in
 * public output). Bodies are cut to a readable length.
 */
import type { Exchange } from './http.js';

export interface MaskedExchange {
  label: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response: { status: number | null; contentType: string | null; body: string; error?: string };
  ms: number;
}

const MAX_BODY = 2000;

/** Removes the secrets given, and the value of every launchToken field, from a text. */
export function maskText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[masked]');
  return out.replace(/("launchToken"\s*:\s*")(?:[^"\\]|\\.)*"/g, '$1[masked]"');
}

function cut(text: string): string {
  return text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}… (${text.length} characters)` : text;
}

/** The URL without user name and password. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '';
      u.password = '';
      return `${u.toString().replace(/\/$/, '')} (credentials removed)`;
    }
    return url;
  } catch {
    return url;
  }
}

export function maskExchange(ex: Exchange, secrets: readonly string[]): MaskedExchange {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ex.request.headers)) headers[k] = k.toLowerCase() === 'x-signature' ? '[masked]' : maskText(v, secrets);
  return {
    label: maskText(ex.label, secrets),
    request: { method: ex.request.method, url: maskUrl(ex.request.url), headers, body: cut(maskText(ex.request.body, secrets)) },
    response: {
      status: ex.response.status,
      contentType: ex.response.contentType,
      body: cut(maskText(ex.response.text, secrets)),
      ...(ex.response.error ? { error: ex.response.error } : {}),
    },
    ms: Math.round(ex.ms * 10) / 10,
  };
}
