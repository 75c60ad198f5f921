/**
 * `gp_nodejs_heap_allocated_bytes_total`: the bytes V8 has allocated on its heap since the process
 * started (`total_allocated_bytes`, reported by the image's Node 26, not by Node 20). It is the
 * garbage the collector must sweep, so its rate is GC pressure, beside prom-client's default GC
 * metrics; `npm run bench` divides it by the bets for allocations per bet (issue 25), a count that
 * does not move with the machine's load. Not registered where the runtime lacks the figure.
 */
import v8 from 'node:v8';
import client from 'prom-client';

const allocatedNow = () => (v8.getHeapStatistics() as v8.HeapInfo & { total_allocated_bytes?: number }).total_allocated_bytes;

export function registerHeapAllocated(registry: client.Registry): void {
  if (typeof allocatedNow() !== 'number') return;
  let counted = 0;
  new client.Counter({
    name: 'gp_nodejs_heap_allocated_bytes_total',
    help: "Bytes allocated on V8's heap since the process started (its rate is the garbage collector's load)",
    registers: [registry],
    collect() {
      const now = allocatedNow() ?? counted;
      if (now > counted) this.inc(now - counted);
      counted = Math.max(counted, now);
    },
  });
}
