/**
 * Each casino's share of this pod's wallet work (issue 23, docs/reliability.md "Tenants"): at
 * most `maxInFlight` callbacks to one operator's wallet at once, at most `maxQueued` more waiting
 * for a slot, each for at most the callback timeout. A casino that answers slowly (or not at all)
 * fills its own lane and then gets `busy` answers for its own players; the sockets, memory and
 * event loop the other casinos' calls need stay free. The circuit breaker (wallet-client.ts)
 * stays per operator as well.
 *
 * Waiting callers are served first come, first served; a lane with nothing in flight and nothing
 * waiting is forgotten, so the map holds only the operators that are busy right now.
 */
export interface BulkheadLimits {
  /** Callbacks to one operator's wallet in flight at once (WALLET_MAX_IN_FLIGHT_PER_OPERATOR). */
  maxInFlight: number;
  /** Callbacks to one operator's wallet waiting for a slot (WALLET_MAX_QUEUED_PER_OPERATOR). */
  maxQueued: number;
}

export const DEFAULT_BULKHEAD: BulkheadLimits = { maxInFlight: 32, maxQueued: 128 };

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

interface Lane {
  inFlight: number;
  queue: Waiter[];
}

export type Release = () => void;

export interface OperatorBulkheads {
  /**
   * A slot for one callback to `operatorId`'s wallet, or null when its lane is full or no slot
   * came free within `waitMs`: then nothing is sent. Call the release exactly once when done.
   */
  acquire(operatorId: string, waitMs: number): Promise<Release | null>;
  /** Lanes in use now (metrics, tests). */
  lanes(): Iterable<{ operatorId: string; inFlight: number; queued: number }>;
}

export function createOperatorBulkheads(limits: BulkheadLimits = DEFAULT_BULKHEAD): OperatorBulkheads {
  const lanes = new Map<string, Lane>();

  const releaser = (operatorId: string, lane: Lane): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = lane.queue.shift();
      if (next) {
        clearTimeout(next.timer);
        next.grant(); // the slot passes straight to the next waiter: inFlight is unchanged
        return;
      }
      lane.inFlight--;
      if (lane.inFlight === 0) lanes.delete(operatorId);
    };
  };

  return {
    acquire(operatorId, waitMs) {
      let lane = lanes.get(operatorId);
      if (!lane) {
        lane = { inFlight: 0, queue: [] };
        lanes.set(operatorId, lane);
      }
      const l = lane;
      if (l.inFlight < limits.maxInFlight) {
        l.inFlight++;
        return Promise.resolve(releaser(operatorId, l));
      }
      if (l.queue.length >= limits.maxQueued) return Promise.resolve(null);
      return new Promise<Release | null>((resolve) => {
        const waiter: Waiter = {
          grant: () => resolve(releaser(operatorId, l)),
          timer: setTimeout(() => {
            const i = l.queue.indexOf(waiter);
            if (i >= 0) l.queue.splice(i, 1);
            resolve(null);
          }, waitMs),
        };
        l.queue.push(waiter);
      });
    },
    *lanes() {
      for (const [operatorId, l] of lanes) yield { operatorId, inFlight: l.inFlight, queued: l.queue.length };
    },
  };
}
