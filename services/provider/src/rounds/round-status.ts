/**
 * Round statuses (SPEC.md "States and transitions", CONTRACT.md §4) and the sets the code asks
 * about. `debit_requested` is internal: a round inserted with its debit recorded, before the
 * debit is confirmed; clients see it as `active` while its worker holds it and as
 * `rollback_pending` once the worker's lease ran out (the retry job will roll the debit back).
 */
export const ROUND_STATUSES = [
  'debit_requested',
  'active',
  'settled',
  'cashed_out',
  'busted',
  'credit_pending',
  'rollback_pending',
  'cancelled',
  'error',
] as const;
export type RoundStatus = (typeof ROUND_STATUSES)[number];

/** The statuses a client sees (CONTRACT.md §4): every status but the internal `debit_requested`. */
export const PUBLIC_ROUND_STATUSES = [
  'active',
  'settled',
  'cashed_out',
  'busted',
  'credit_pending',
  'rollback_pending',
  'cancelled',
  'error',
] as const satisfies readonly RoundStatus[];
export type PublicRoundStatus = (typeof PUBLIC_ROUND_STATUSES)[number];

/** A round in one of these never changes again (a database trigger holds it too). */
export const FINAL_STATUSES: readonly RoundStatus[] = ['settled', 'cashed_out', 'busted', 'cancelled', 'error'];
/** The debit is on its way or the round is playable: at most one such Mines and one Blackjack round per player (partial unique index). */
export const OPEN_STATUSES: readonly RoundStatus[] = ['debit_requested', 'active'];
/** The bet did not go through: its answer is an error carrying the round (CONTRACT.md §2). */
export const FAILED_STATUSES: readonly RoundStatus[] = ['error', 'cancelled', 'rollback_pending'];
/** The result is fixed: the stored result (with every secret revealed) is what a view shows. */
export const RESULT_STATUSES: readonly RoundStatus[] = [...FINAL_STATUSES, 'credit_pending'];
/** Where a round closes once its credit is confirmed. */
export type CloseStatus = 'settled' | 'cashed_out' | 'busted';
/** The final statuses of a round whose credit was confirmed. */
export const CLOSED_STATUSES: readonly RoundStatus[] = ['settled', 'cashed_out', 'busted'] satisfies readonly CloseStatus[];

export const isOpen = (round: { status: RoundStatus }) => OPEN_STATUSES.includes(round.status);
export const isFailed = (round: { status: RoundStatus }) => FAILED_STATUSES.includes(round.status);

/** The status a client sees (CONTRACT.md §4). */
export function publicStatusOf(round: { status: RoundStatus; leaseUntil: string | null }, now = Date.now()): PublicRoundStatus {
  if (round.status !== 'debit_requested') return round.status;
  const expired = round.leaseUntil !== null && Date.parse(round.leaseUntil) < now;
  return expired ? 'rollback_pending' : 'active';
}
