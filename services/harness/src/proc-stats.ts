/**
 * What the kernel says about a process and the machine (Linux /proc): CPU time (user + system)
 * of a pid, its resident memory now (VmRSS) and at its peak (VmHWM), and the machine's busy
 * CPU time. No sampling inside the measured process: it is read from outside.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';

let ticksPerSecond = 0;
function clockTicks(): number {
  if (!ticksPerSecond) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function statFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) the process has used so far; 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  const f = statFields(pid);
  if (!f) return 0;
  // after the name: state(0) ppid(1) ... utime(11) stime(12)
  return (Number(f[11]) + Number(f[12])) / clockTicks();
}

export function parentPid(pid: number): number | null {
  const f = statFields(pid);
  return f ? Number(f[1]) : null;
}

/** VmRSS and VmHWM (peak resident set) in MiB; null when the process is gone. */
export function memoryMiB(pid: number): { rss: number; peak: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/**
 * Resets a process's VmHWM to its current RSS (`/proc/<pid>/clear_refs` "5", Linux ≥ 4.0), so that
 * VmHWM read later is the peak since now; false when the kernel or permissions refuse.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Busy and total CPU seconds of the whole machine (every core) since boot. */
export function machineCpu(): { busy: number; total: number; cores: number } {
  const text = readFileSync('/proc/stat', 'utf8');
  const first = text.split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = first.reduce((a, b) => a + b, 0);
  const idle = (first[3] ?? 0) + (first[4] ?? 0); // idle + iowait
  const cores = text.split('\n').filter((l) => /^cpu\d+ /.test(l)).length;
  return { busy: (total - idle) / clockTicks(), total: total / clockTicks(), cores };
}

/** The pids whose parent is `ppid` (e.g. the backends of a PostgreSQL postmaster). */
export function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (parentPid(Number(entry)) === ppid) out.push(Number(entry));
  }
  return out;
}

/**
 * CPU seconds of a group of processes between two readings. Processes that exit between the
 * readings lose what they used since the first reading (long-lived pools make that small).
 */
export class CpuMeter {
  private start = new Map<number, number>();
  constructor(private readonly pids: () => number[]) {}
  begin(): void {
    this.start = new Map(this.pids().map((p) => [p, cpuSeconds(p)]));
  }
  /** CPU seconds used since begin(). */
  used(): number {
    let sum = 0;
    for (const p of this.pids()) sum += cpuSeconds(p) - (this.start.get(p) ?? 0);
    return Math.max(0, sum);
  }
}

/** Bytes V8 has allocated in this process since it started; undefined on a Node that does not report it (20). */
export const ownHeapAllocatedBytes = (): number | undefined =>
  (v8.getHeapStatistics() as v8.HeapInfo & { total_allocated_bytes?: number }).total_allocated_bytes;

/**
 * Bytes V8 has allocated in a process since it started, from its Prometheus listener
 * (`gp_nodejs_heap_allocated_bytes_total`: the provider's metrics, the pipeline's `/metrics`); null
 * when it has no listener or its runtime does not report the figure (Node 20). The one read the
 * measured process does for it allocates a few KiB, against the hundreds of MiB of a window.
 */
export async function heapAllocatedBytes(metricsUrl: string | null): Promise<number | null> {
  if (!metricsUrl) return null;
  try {
    const res = await fetch(metricsUrl);
    const m = /^gp_nodejs_heap_allocated_bytes_total (\S+)$/m.exec(await res.text());
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
