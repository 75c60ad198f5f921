/**
 * The promotions panel's poll schedule (issue 30, docs/promotions.md "Live leaderboard"): the page
 * asks again after the server's `nextPollSeconds` (4 s while a promotion runs or has just ended,
 * up to 60 s when none runs), ± 1/8 of it so a thousand pages loaded at once do not ask in step;
 * a hidden page (document.hidden) asks nothing until it is visible again, then asks at once.
 * No React, no globals: the component passes the document and the timers.
 */
export const DEFAULT_POLL_SECONDS = 4;
export const MAX_POLL_SECONDS = 300;

/** The delay before the next request: the server's hint (default 4 s, at most 5 min) with a jitter of ± 1/8. `random` in [0, 1). */
export function pollDelayMs(nextPollSeconds: number | undefined, random: number): number {
  const s =
    typeof nextPollSeconds === 'number' && Number.isFinite(nextPollSeconds) && nextPollSeconds >= 1
      ? Math.min(nextPollSeconds, MAX_POLL_SECONDS)
      : DEFAULT_POLL_SECONDS;
  return Math.round(s * 1000 * (0.875 + random * 0.25));
}

export interface PollEnv {
  document: Pick<Document, 'hidden' | 'addEventListener' | 'removeEventListener'>;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  random: () => number;
}

/**
 * Calls `load` now (unless the page is hidden) and again after each answer's hint; `load`
 * resolves to the answer's `nextPollSeconds` (undefined when the read failed: the default).
 * Returns the stop function.
 */
export function startPolling(load: () => Promise<number | undefined>, env: PollEnv): () => void {
  let timer: unknown = null;
  let inFlight = false;
  let stopped = false;
  let lastHint: number | undefined;

  const schedule = () => {
    if (stopped || env.document.hidden) return;
    timer = env.setTimeout(run, pollDelayMs(lastHint, env.random()));
  };
  const run = () => {
    timer = null;
    if (stopped || env.document.hidden || inFlight) return;
    inFlight = true;
    void load()
      .then(
        (hint) => {
          lastHint = hint ?? lastHint;
        },
        () => undefined,
      )
      .finally(() => {
        inFlight = false;
        schedule();
      });
  };
  const onVisibility = () => {
    if (timer !== null) {
      env.clearTimeout(timer);
      timer = null;
    }
    if (!env.document.hidden) run();
  };

  env.document.addEventListener('visibilitychange', onVisibility);
  run();
  return () => {
    stopped = true;
    if (timer !== null) env.clearTimeout(timer);
    env.document.removeEventListener('visibilitychange', onVisibility);
  };
}
