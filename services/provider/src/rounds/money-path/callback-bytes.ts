/**
 * A wallet callback's exact bytes at rest. A retry sends the bytes of the first attempt again
 * (SPEC.md: the same body under the same idempotency key), so they are recorded before the first
 * attempt; the body carries the player's launch token, a secret, so they are never stored in the
 * clear. A callback row holds:
 *
 *  - `request_body`: the body with the token replaced by `"[redacted]"` — what the audit shows;
 *  - `request_body_enc`: what gives the exact bytes back, in one of two forms:
 *    - `t1:<the launch token, sealed>` — the exact bytes are `request_body` with its one
 *      `"launchToken":"[redacted]"` given the token back (`exactBody`). The token is sealed once per
 *      process and token (`KeptTokens`), not once per callback: sealing a whole body with AES-256-GCM
 *      for each of a bet's two callbacks was ≈ 6 % of a dice bet's provider CPU (issue 25,
 *      docs/performance.md "the twelfth session");
 *    - `v1:…` — the exact bytes sealed whole (secret-box.ts): a body without a launch token (a
 *      rollback), and every row written before the `t1` form.
 *
 * Both forms are read for as long as such rows exist; `t1` is written whenever the body has a
 * launch token.
 */
import type { SecretBox } from '../../infra/secret-box.js';
import { stringifyJson } from '../../infra/json.js';

const REDACTED = '[redacted]';
/** The masked token as the masked body writes it. */
const MASKED_TOKEN = `"launchToken":${stringifyJson(REDACTED)}`;
const TOKEN_FORM = 't1:';

/** The audit's copy of a body: the launch token replaced by "[redacted]" (key order kept). */
export function maskedBody(body: Record<string, unknown>): string {
  return stringifyJson('launchToken' in body ? { ...body, launchToken: REDACTED } : body);
}

/**
 * The launch tokens this process sealed or opened lately, both ways, per key (a test process
 * runs apps with different keys): a session's bets reuse one sealed text. Bounded by entries and
 * by characters (a launch token may be 2,000 characters long): past
 * either bound the oldest are forgotten, and a forgotten token is sealed (or opened) again — only
 * CPU, never a different answer. Reusing a sealed text shows that two rows carry the same token,
 * which their round's session already shows.
 */
class KeptTokens {
  private readonly sealedOf = new Map<string, string>();
  private readonly tokenOf = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly box: SecretBox,
    private readonly max: { entries: number; chars: number },
  ) {}

  seal(token: string): string {
    let sealed = this.sealedOf.get(token);
    if (sealed === undefined) {
      sealed = this.box.seal(token);
      this.keep(token, sealed);
    }
    return sealed;
  }

  open(sealed: string): string {
    let token = this.tokenOf.get(sealed);
    if (token === undefined) {
      token = this.box.open(sealed);
      this.keep(token, sealed);
    }
    return token;
  }

  /** Entries and characters kept (tests). */
  size(): { entries: number; chars: number } {
    return { entries: this.sealedOf.size, chars: this.chars };
  }

  private forget(token: string): void {
    const sealed = this.sealedOf.get(token);
    if (sealed === undefined) return;
    this.sealedOf.delete(token);
    this.tokenOf.delete(sealed);
    this.chars -= token.length + sealed.length;
  }

  private keep(token: string, sealed: string): void {
    this.forget(token);
    this.sealedOf.set(token, sealed);
    this.tokenOf.set(sealed, token);
    this.chars += token.length + sealed.length;
    while (this.sealedOf.size > this.max.entries || this.chars > this.max.chars) {
      this.forget(this.sealedOf.keys().next().value!);
    }
  }
}

/**
 * Launch tokens kept per process and key: up to 4,096 and 1 M characters with their sealed texts
 * (≈ 1–2 MB). A 40-character token and its sealed text are ≈ 140 characters, so 4,096 of them fit;
 * of 2,000-character tokens (the longest a launch takes) ≈ 220 do.
 */
export const KEPT_TOKENS = { entries: 4096, chars: 1 << 20 };
const kept = new WeakMap<SecretBox, KeptTokens>();
const keptFor = (box: SecretBox) => {
  let k = kept.get(box);
  if (!k) kept.set(box, (k = new KeptTokens(box, KEPT_TOKENS)));
  return k;
};
/** The entries and characters kept for a box (tests). */
export const keptTokensOf = (box: SecretBox) => keptFor(box).size();

/** Where the masked token is in a masked body: its one place, or -1 when it is not there exactly once. */
function tokenPlace(masked: string): number {
  const at = masked.indexOf(MASKED_TOKEN);
  return at >= 0 && masked.indexOf(MASKED_TOKEN, at + MASKED_TOKEN.length) < 0 ? at : -1;
}

/** A body as a callback row stores it: the audit's masked copy and what gives the exact bytes back. */
export function bodyAtRest(box: SecretBox, body: Record<string, unknown>): { requestBody: string; requestBodyEnc: string } {
  const requestBody = maskedBody(body);
  const token = body.launchToken;
  if (typeof token === 'string' && tokenPlace(requestBody) >= 0) return { requestBody, requestBodyEnc: TOKEN_FORM + keptFor(box).seal(token) };
  return { requestBody, requestBodyEnc: box.seal(stringifyJson(body)) };
}

/** The exact bytes of a recorded callback, from either form (above). Throws when a `t1` row's masked body is not one this module wrote. */
export function exactBody(box: SecretBox, cb: { requestBody: string; requestBodyEnc: string }): string {
  if (!cb.requestBodyEnc.startsWith(TOKEN_FORM)) return box.open(cb.requestBodyEnc);
  const at = tokenPlace(cb.requestBody);
  if (at < 0) throw new Error('a t1 callback body does not hold its masked launch token exactly once');
  const token = keptFor(box).open(cb.requestBodyEnc.slice(TOKEN_FORM.length));
  return `${cb.requestBody.slice(0, at)}"launchToken":${stringifyJson(token)}${cb.requestBody.slice(at + MASKED_TOKEN.length)}`;
}
