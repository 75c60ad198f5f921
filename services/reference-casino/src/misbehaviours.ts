/**
 * Switchable wallet bugs: each one makes the reference casino behave like a casino wallet that
 * got one rule of SPEC.md / CONTRACT.md wrong, so that the wallet conformance checker
 * (`@gp/wallet-check`) can be shown to catch it. All are off by default: with none switched on
 * the casino behaves exactly as its README describes.
 *
 * Unlike faults (faults.ts: transport failures a provider must survive), a misbehaviour is a
 * wrong answer given with a straight face.
 */

export const MISBEHAVIOURS = {
  'credit-twice-on-repeat': 'a repeated credit key books the credit again (a second transaction) instead of replaying the first answer',
  'ignore-rollbacks': 'a rollback of an applied debit answers 200 but refunds nothing',
  'accept-stale-timestamp': 'X-Timestamp is not checked against the clock skew',
  'accept-reused-nonce': 'nonces are not remembered: a replayed request is processed again',
  'accept-bad-signature': 'the HMAC is not compared: any well-formed X-Signature passes',
  'answer-other-currency': 'balance, debit, credit and rollback answers name another currency than the one asked',
  'accept-over-precise': 'amounts with more decimals than the currency has are truncated instead of refused',
  'accept-late-debit': 'a debit that arrives after its rollback is applied (no tombstone)',
  'racy-idempotency': 'the key is checked, then the request waits before it is applied: concurrent duplicates each create a transaction',
  'ignore-idempotency-conflict': 'the same key with another body replays the first answer instead of 409 IDEMPOTENCY_CONFLICT',
  'accept-negative-amount': 'a negative debit is applied (and so credits the player)',
  'refuse-zero-credit': 'a credit of 0 (a lost round) is refused with 400',
  'refuse-unknown-rollback': 'a rollback of a debit it never received is refused with 400 instead of succeeding',
  'amounts-as-strings': 'balances are written as JSON strings ("100.00") instead of numbers',
  'slow-answers': 'every wallet answer is held back this many milliseconds (a number)',
} as const;

export type MisbehaviourName = keyof typeof MISBEHAVIOURS;
export const MISBEHAVIOUR_NAMES = Object.keys(MISBEHAVIOURS) as MisbehaviourName[];

/** The switched-on misbehaviours: `true` for each one, milliseconds for `slow-answers`. */
export type Misbehaviours = { [K in Exclude<MisbehaviourName, 'slow-answers'>]?: boolean } & { 'slow-answers'?: number };

/** How long the `racy-idempotency` casino waits between checking a key and applying the request. */
export const RACE_WINDOW_MS = 25;

/** Checks misbehaviours given as untrusted JSON (the control API or options); throws an Error naming the problem. */
export function validateMisbehaviours(input: unknown): Misbehaviours {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('misbehaviours must be an object');
  const out: Misbehaviours = {};
  for (const [name, value] of Object.entries(input)) {
    if (!(name in MISBEHAVIOURS)) throw new Error(`unknown misbehaviour ${name} (known: ${MISBEHAVIOUR_NAMES.join(', ')})`);
    if (name === 'slow-answers') {
      if (value === false || value === 0 || value === undefined) continue;
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 600_000) throw new Error('slow-answers must be milliseconds 0..600000');
      out['slow-answers'] = value as number;
    } else {
      if (typeof value !== 'boolean') throw new Error(`${name} must be true or false`);
      if (value) out[name as Exclude<MisbehaviourName, 'slow-answers'>] = true;
    }
  }
  return out;
}
