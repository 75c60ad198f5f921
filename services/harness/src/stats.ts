/** Latency samples and percentiles, counters by name, and the fixed-width tables the CLIs print. */

export class Latencies {
  private samples: number[] = [];
  add(ms: number): void {
    this.samples.push(ms);
  }
  get count(): number {
    return this.samples.length;
  }
  /** p in 0..100 (nearest rank); NaN without samples. */
  percentile(p: number): number {
    if (this.samples.length === 0) return NaN;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[i]!;
  }
  summary(): { p50: number; p95: number; p99: number; max: number } {
    if (this.samples.length === 0) return { p50: NaN, p95: NaN, p99: NaN, max: NaN };
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
    return { p50: at(50), p95: at(95), p99: at(99), max: sorted[sorted.length - 1]! };
  }
  reset(): void {
    this.samples = [];
  }
}

export class Counter {
  readonly counts = new Map<string, number>();
  add(name: string, n = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + n);
  }
  get(name: string): number {
    return this.counts.get(name) ?? 0;
  }
  total(): number {
    let t = 0;
    for (const v of this.counts.values()) t += v;
    return t;
  }
  /** `a: 3, b: 1` sorted by count. */
  toString(): string {
    return (
      [...this.counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || 'none'
    );
  }
}

export const fmt = (v: number | null | undefined, digits = 1): string => (v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

/** A plain text table (first row: headers). */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The same table in Markdown (for docs/performance.md). */
export function markdownTable(rows: string[][]): string {
  const [head, ...body] = rows;
  return [`| ${head!.join(' | ')} |`, `|${head!.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
