/**
 * The promotions panel's poll schedule (web-game/src/components/promo-poll.ts, issue 30): the page
 * follows the server's `nextPollSeconds` (60 s when no promotion runs, 4 s while one does), with a
 * bounded jitter, and a hidden page asks nothing until it is visible again. Driven by a fake clock
 * and document: the test counts requests, it measures no time.
 */
import { describe, expect, it } from 'vitest';
import { pollDelayMs, startPolling } from '../src/components/promo-poll.js';

/** A fake clock: timers fire only when the test advances it. */
function world(hints: (number | undefined)[]) {
  let now = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let nextId = 1;
  const listeners = new Set<() => void>();
  const doc = {
    hidden: false,
    addEventListener: (_: string, fn: () => void) => listeners.add(fn),
    removeEventListener: (_: string, fn: () => void) => listeners.delete(fn),
  };
  const requests: number[] = [];
  let i = 0;
  const load = () => {
    requests.push(now);
    const h = hints[Math.min(i++, hints.length - 1)];
    return h === -1 ? Promise.reject(new Error('offline')) : Promise.resolve(h);
  };
  const settle = () => new Promise((r) => setImmediate(r));
  const env = {
    document: doc as unknown as Document,
    setTimeout: (fn: () => void, ms: number) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id: unknown) => void timers.delete(id as number),
    random: () => 0.5,
  };
  return {
    env,
    load,
    requests,
    pending: () => timers.size,
    async advance(ms: number) {
      const until = now + ms;
      await settle();
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
        await settle();
      }
      now = until;
    },
    async setHidden(hidden: boolean) {
      doc.hidden = hidden;
      for (const fn of listeners) fn();
      await settle();
    },
    listeners,
  };
}

describe('the promotions poll schedule', () => {
  it('uses the hint with a jitter of at most 1/8, 4 s without one, and never more than 5 minutes', () => {
    expect(pollDelayMs(60, 0.5)).toBe(60_000);
    expect(pollDelayMs(60, 0)).toBe(52_500);
    expect(pollDelayMs(60, 0.999999)).toBeLessThanOrEqual(67_500);
    expect(pollDelayMs(undefined, 0.5)).toBe(4000);
    expect(pollDelayMs(0, 0.5)).toBe(4000);
    expect(pollDelayMs(Number.NaN, 0.5)).toBe(4000);
    expect(pollDelayMs(86_400, 0.5)).toBe(300_000);
  });

  it('asks once a minute when the server says no promotion runs, every 4 s when one does', async () => {
    const w = world([60]);
    const stop = startPolling(w.load, w.env);
    await w.advance(120_000);
    expect(w.requests).toEqual([0, 60_000, 120_000]); // 3 requests in 2 minutes, not 30
    stop();

    const busy = world([4]);
    const stopBusy = startPolling(busy.load, busy.env);
    await busy.advance(20_000);
    expect(busy.requests).toHaveLength(6); // 0, 4, 8, 12, 16, 20 s
    stopBusy();
  });

  it('follows a changing hint: a promotion starting in 20 s, then running, then over', async () => {
    const w = world([20, 4, 4, 60]);
    const stop = startPolling(w.load, w.env);
    await w.advance(100_000);
    expect(w.requests).toEqual([0, 20_000, 24_000, 28_000, 88_000]);
    stop();
  });

  it('a hidden page asks nothing until visible again, then asks at once', async () => {
    const w = world([4]);
    const stop = startPolling(w.load, w.env);
    await w.advance(8000);
    expect(w.requests).toHaveLength(3);
    await w.setHidden(true);
    expect(w.pending()).toBe(0);
    await w.advance(600_000);
    expect(w.requests).toHaveLength(3);
    await w.setHidden(false);
    expect(w.requests).toHaveLength(4);
    await w.advance(4000);
    expect(w.requests).toHaveLength(5);
    stop();
    expect(w.listeners.size).toBe(0);
    await w.advance(60_000);
    expect(w.requests).toHaveLength(5);
  });

  it('a page loaded hidden waits for visibility; a failed read keeps the last hint', async () => {
    const w = world([60, -1, 60]);
    w.env.document = Object.assign(w.env.document, { hidden: true });
    const stop = startPolling(w.load, w.env);
    await w.advance(120_000);
    expect(w.requests).toHaveLength(0);
    await w.setHidden(false);
    await w.advance(120_000);
    expect(w.requests).toEqual([120_000, 180_000, 240_000]); // the failure at 180 s still waits a minute
    stop();
  });

  it('a visibility change during a request does not start a second one', async () => {
    let release: (v: number) => void = () => undefined;
    const w = world([4]);
    let calls = 0;
    const slow = () => {
      calls++;
      return new Promise<number>((r) => (release = r));
    };
    const stop = startPolling(slow, w.env);
    await w.setHidden(true);
    await w.setHidden(false);
    expect(calls).toBe(1);
    release(4);
    await w.advance(4000);
    expect(calls).toBe(2);
    stop();
  });
});
