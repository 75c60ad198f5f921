/**
 * When the game page should next ask for its promotions panel (issue 30, docs/promotions.md
 * "Live leaderboard"): the answer's `nextPollSeconds`. Short while a promotion of the player runs
 * or has just ended (its prizes are being awarded: the win notice follows), until the start of one
 * scheduled within the long interval, long when nothing is running or coming. Pure: no I/O.
 */
export const POLL_SHORT_SECONDS = 4;
export const POLL_LONG_SECONDS = 60;

export interface PollState {
  /** the player sees a running tournament or drop */
  running: boolean;
  /** a promotion of the operator ended lately and its result is not fixed yet */
  settling: boolean;
  /** the earliest start of a scheduled promotion of the operator */
  nextStartAt: string | null;
  now: number;
}

export function nextPollSeconds(s: PollState): number {
  if (s.running || s.settling) return POLL_SHORT_SECONDS;
  if (s.nextStartAt) {
    const untilStart = Math.ceil((Date.parse(s.nextStartAt) - s.now) / 1000);
    return Math.min(POLL_LONG_SECONDS, Math.max(POLL_SHORT_SECONDS, untilStart));
  }
  return POLL_LONG_SECONDS;
}
