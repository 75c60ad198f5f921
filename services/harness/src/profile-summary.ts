#!/usr/bin/env node
/**
 * A V8 CPU profile (`node --cpu-prof`, `npm run bench -- --cpu-prof DIR`) summarised as markdown:
 * the share of samples by package (inclusive: a sample counts for every package on its stack; and
 * self: the frame that was running), and the top functions by self and inclusive share.
 * `node services/harness/dist/profile-summary.js FILE.cpuprofile [--top 25] [--after placeBet --skip 3]`
 * (`--after FN --skip S`: only the load, from S seconds after the first sample running FN).
 * `--not-cpu writev` leaves out, as it does idle samples, the samples whose running frame is that
 * native function: V8 samples wall time, and on a machine whose cores are all busy a socket write
 * that wakes another process (PostgreSQL) often hands it the core, so the writer is counted
 * "in writev" while it waits for a core (compare the process's user and system time in /proc).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas?: number[];
}

/**
 * Only the samples of the load: from the first sample whose stack runs `fn` (e.g. placeBet), plus
 * `skipS` seconds (the warm-up), to the last sample whose stack runs it. Start-up (module
 * compilation, migrations, schema compilation) and shutdown are left out.
 */
export function window(p: Profile, fn: string, skipS: number): Profile {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const runs = new Map<number, boolean>();
  const hasFn = (id: number): boolean => {
    const known = runs.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id)!;
    const v = n.callFrame.functionName === fn || (parent.has(id) && hasFn(parent.get(id)!));
    runs.set(id, v);
    return v;
  };
  const times: number[] = [];
  let t = 0;
  for (let i = 0; i < p.samples.length; i++) times.push((t += p.timeDeltas?.[i] ?? 0));
  const first = p.samples.findIndex((id) => hasFn(id));
  let last = -1;
  for (let i = p.samples.length - 1; i >= 0; i--)
    if (hasFn(p.samples[i]!)) {
      last = i;
      break;
    }
  if (first < 0) throw new Error(`no sample runs ${fn}`);
  const from = times[first]! + skipS * 1e6;
  const keep = p.samples.map((_, i) => i).filter((i) => times[i]! >= from && i <= last);
  return { nodes: p.nodes, samples: keep.map((i) => p.samples[i]!) };
}

/** The package (or part of ours) a frame belongs to. */
export function categoryOf(url: string, fn: string): string {
  if (!url)
    return fn === '(garbage collector)' ? 'GC' : fn === '(idle)' ? 'idle' : fn === '(program)' ? 'V8 / native (program)' : `native ${fn || '(anonymous)'}`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const m = url.match(/services\/([^/]+)\/(?:dist|src)\/(.+)$/);
  if (m) return m[1] === 'provider' ? `provider/${m[2]!.split('/')[0]!.replace(/\.js$/, '')}` : `@gp/${m[1]}`;
  return url;
}

export function summarise(p: Profile, top = 25, notCpu: string[] = []): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const left = (n: ProfileNode) => n.callFrame.functionName === '(idle)' || (!n.callFrame.url && notCpu.includes(n.callFrame.functionName));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const total = p.samples.filter((id) => !left(byId.get(id)!)).length;
  const selfCat = new Map<string, number>();
  const inclCat = new Map<string, number>();
  const selfFn = new Map<string, number>();
  const inclFn = new Map<string, number>();
  const key = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${categoryOf(n.callFrame.url, n.callFrame.functionName)}:${n.callFrame.lineNumber + 1}`;
  for (const id of p.samples) {
    const leaf = byId.get(id)!;
    if (left(leaf)) continue;
    const c = categoryOf(leaf.callFrame.url, leaf.callFrame.functionName);
    selfCat.set(c, (selfCat.get(c) ?? 0) + 1);
    selfFn.set(key(leaf), (selfFn.get(key(leaf)) ?? 0) + 1);
    const cats = new Set<string>();
    const fns = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = parent.has(n.id) ? byId.get(parent.get(n.id)!) : undefined) {
      if (n.callFrame.functionName === '(root)') break;
      cats.add(categoryOf(n.callFrame.url, n.callFrame.functionName));
      fns.add(key(n));
    }
    for (const x of cats) inclCat.set(x, (inclCat.get(x) ?? 0) + 1);
    for (const x of fns) inclFn.set(x, (inclFn.get(x) ?? 0) + 1);
  }
  const pct = (n: number) => `${((100 * n) / total).toFixed(1)} %`;
  const rows = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `| ${k.replace(/\|/g, '\\|')} | ${pct(v)} |`)
      .join('\n');
  return [
    `${total} busy samples (idle${notCpu.length ? `, ${notCpu.join(', ')}` : ''} left out).`,
    '',
    '### By package, inclusive (a sample counts for every package on its stack)',
    '',
    '| package | share |',
    '|---|---:|',
    rows(inclCat, top),
    '',
    '### By package, self (the frame that was running)',
    '',
    '| package | share |',
    '|---|---:|',
    rows(selfCat, top),
    '',
    '### Functions, self',
    '',
    '| function (package:line) | share |',
    '|---|---:|',
    rows(selfFn, top),
    '',
    '### Functions, inclusive',
    '',
    '| function (package:line) | share |',
    '|---|---:|',
    rows(inclFn, top),
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '25' },
      after: { type: 'string' },
      skip: { type: 'string', default: '0' },
      'not-cpu': { type: 'string', multiple: true, default: [] },
    },
  });
  if (!positionals[0]) {
    console.error('usage: profile-summary FILE.cpuprofile [--top 25] [--after FN --skip S] [--not-cpu writev]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
  console.log(summarise(values.after ? window(profile, values.after, Number(values.skip)) : profile, Number(values.top), values['not-cpu']));
}
