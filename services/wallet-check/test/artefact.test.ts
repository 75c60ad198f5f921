/**
 * What a casino gets (issue 28 item 8): the checker as one file that runs outside this monorepo
 * (no node_modules next to it), its JUnit XML and PDF reports beside the text, JSON and HTML ones,
 * and a balance check for an unknown player that accepts the casino's own 4xx business code
 * (CONTRACT.md §11) and says which code it saw.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS, runWalletCheck } from '../src/index.js';

const SECRET = 'wallet-check-secret-0123456789abcdef';
const QUICK = ['--samples', '2', '--load-seconds', '0.5', '--load-concurrency', '4'];
const ROOT = path.resolve(import.meta.dirname, '..');

let casino: ReferenceCasino;
let token: string;
let dir: string;
let bundle: string;

beforeAll(async () => {
  casino = await startReferenceCasino({ operators: { 'op-usd': { secret: SECRET, currency: 'USD', decimals: 2 } } });
  casino.createPlayer({ playerRef: 'p1', displayName: 'Test Player', balance: '100.00', currency: 'USD' });
  token = casino.issueLaunchToken('p1', { operatorId: 'op-usd' });
  dir = mkdtempSync(path.join(tmpdir(), 'wallet-check-artefact-'));
  bundle = path.join(dir, 'wallet-check.mjs');
  // The build step itself, into a folder with nothing else in it.
  const built = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs'), '--outfile', bundle], { encoding: 'utf8' });
  expect(built.status, built.stderr).toBe(0);
  writeFileSync(path.join(dir, 'secret'), `${SECRET}\n`);
  writeFileSync(path.join(dir, 'token'), token);
});
afterAll(async () => {
  await casino?.close();
});

const runBundle = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    // cwd is the bundle's folder and NODE_PATH is empty: nothing of the monorepo can be found.
    execFile(process.execPath, [bundle, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
const baseArgs = (url: string) => [
  '--url',
  url,
  '--operator',
  'op-usd',
  '--secret-file',
  'secret',
  '--token-file',
  'token',
  '--player',
  'p1',
  '--currency',
  'USD',
  ...QUICK,
  '--quiet',
];

/** The JUnit XML's testcases: name, classname, and whether it failed or was skipped. */
function junitCases(xml: string) {
  return [
    ...xml.matchAll(
      /<testcase classname="([^"]+)" name="([^"]+)" time="[\d.]+">([\s\S]*?)<\/testcase>|<testcase classname="([^"]+)" name="([^"]+)" time="[\d.]+"><\/testcase>/g,
    ),
  ].map((m) => ({
    classname: m[1] ?? m[4]!,
    name: m[2] ?? m[5]!,
    failed: (m[3] ?? '').includes('<failure'),
    skipped: (m[3] ?? '').includes('<skipped'),
  }));
}

/** A PDF's structure: header, every xref offset pointing at its object, the text of its pages. */
function readPdf(buf: Buffer): string {
  const text = buf.toString('latin1');
  expect(text.startsWith('%PDF-1.4\n')).toBe(true);
  expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\s*$/.exec(text)![1]);
  expect(text.slice(startxref, startxref + 4)).toBe('xref');
  const [, first, count] = /^xref\n(\d+) (\d+)\n/.exec(text.slice(startxref))!.map(Number) as number[];
  expect(first).toBe(0);
  const entries = text
    .slice(startxref)
    .split('\n')
    .slice(2, 2 + count!);
  entries.slice(1).forEach((e, i) => expect(text.slice(Number(e.slice(0, 10)), Number(e.slice(0, 10)) + 10)).toMatch(new RegExp(`^${i + 1} 0 obj\\n`)));
  // the page contents, inflated: the strings shown with Tj
  const shown: string[] = [];
  for (const m of text.matchAll(/<< \/Length (\d+) \/Filter \/FlateDecode >>\nstream\n/g)) {
    const start = m.index! + m[0].length;
    const content = inflateSync(buf.subarray(start, start + Number(m[1]))).toString('latin1');
    for (const t of content.matchAll(/\((.*?)\) Tj/g)) shown.push(t[1]!.replace(/\\([()\\])/g, '$1'));
  }
  return shown.join('\n');
}

describe('the one-file checker (dist/wallet-check.mjs)', () => {
  it('runs alone against a correct wallet: exit 0, and the JSON, JUnit XML, HTML and PDF reports agree', async () => {
    const r = await runBundle([...baseArgs(casino.url), '--json', 'r.json', '--junit', 'r.xml', '--html', 'r.html', '--pdf', 'r.pdf']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${CHECKS.length} checks: ${CHECKS.length} passed, 0 failed, 0 skipped`));

    const json = JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8')) as { ok: boolean; checks: { id: string }[] };
    expect(json.ok).toBe(true);
    expect(json.checks.map((c) => c.id)).toEqual(CHECKS.map((c) => c.id));

    const xml = readFileSync(path.join(dir, 'r.xml'), 'utf8');
    expect(xml).toMatch(
      new RegExp(
        `^<\\?xml version="1.0" encoding="UTF-8"\\?>\\n<testsuites name="wallet-check op-usd" tests="${CHECKS.length}" failures="0" errors="0" skipped="0"`,
      ),
    );
    const cases = junitCases(xml);
    expect(cases.map((c) => c.name.split(':')[0])).toEqual(CHECKS.map((c) => c.id));
    expect(cases.every((c) => !c.failed && !c.skipped && c.classname.startsWith('wallet-check.'))).toBe(true);
    expect(xml).not.toContain(SECRET);
    expect(xml).not.toContain(token);

    const pdf = readFileSync(path.join(dir, 'r.pdf'));
    const shown = readPdf(pdf);
    expect(shown).toContain(`PASSED: ${CHECKS.length} checks, ${CHECKS.length} passed, 0 failed, 0 skipped`);
    expect(shown).toContain('Every check passed.');
    expect(shown).toContain('Reviewed by:');
    expect(pdf.toString('latin1')).not.toContain(SECRET);
    // Where poppler is installed, a real PDF reader agrees.
    const poppler = spawnSync('pdftotext', ['-layout', path.join(dir, 'r.pdf'), '-'], { encoding: 'utf8' });
    if (!poppler.error) {
      expect(poppler.status, poppler.stderr).toBe(0);
      expect(poppler.stdout).toContain('Wallet conformance summary');
      expect(poppler.stdout).toContain(`PASSED: ${CHECKS.length} checks`);
    }
  });
});

/**
 * A wallet in front of the reference casino that answers the balance of an unknown player its
 * own way (`answer`); every other request goes through unchanged.
 */
async function wrapper(answer: { status: number; body: unknown }): Promise<{ url: string; server: Server }> {
  const target = new URL(casino.url);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.endsWith('/wallet/balance') && body.toString().includes('"playerRef":"wallet-check-unknown-')) {
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
        return;
      }
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: `${target.pathname.replace(/\/$/, '')}${req.url}`, headers: req.headers },
        (u) => {
          res.writeHead(u.statusCode ?? 502, u.headers);
          u.pipe(res);
        },
      );
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}

describe('session.balance-unknown-player: any 4xx business refusal, with the code seen', () => {
  const runOnly = async (url: string) => {
    const report = await runWalletCheck({
      url,
      operatorId: 'op-usd',
      secret: SECRET,
      launchToken: token,
      playerRef: 'p1',
      currency: 'USD',
      samples: 2,
      loadSeconds: 0.5,
      loadConcurrency: 4,
      only: ['session'],
    });
    return report.checks.find((c) => c.id === 'session.balance-unknown-player')!;
  };

  it("passes INVALID_SESSION (the reference casino) and a casino's own 400 PLAYER_NOT_FOUND or 404 code, naming the code", async () => {
    expect((await runOnly(casino.url)).message).toContain('HTTP 400 INVALID_SESSION');
    for (const answer of [
      { status: 400, body: { code: 'PLAYER_NOT_FOUND', message: 'no such player' } },
      { status: 404, body: { code: 'UNKNOWN_ACCOUNT' } },
    ]) {
      const w = await wrapper(answer);
      try {
        const r = await runOnly(w.url);
        expect(r.status, r.message).toBe('pass');
        expect(r.message).toContain(`HTTP ${answer.status} ${answer.body.code}`);
      } finally {
        w.server.close();
      }
    }
  });

  it('fails a 200, a signature refusal, a 5xx and a 4xx without a code', async () => {
    for (const answer of [
      { status: 200, body: { balance: 0, currency: 'USD' } },
      { status: 401, body: { code: 'SIGNATURE_INVALID' } },
      { status: 400, body: { code: 'SIGNATURE_INVALID' } },
      { status: 503, body: { code: 'UNAVAILABLE' } },
      { status: 400, body: { error: 'no code' } },
    ]) {
      const w = await wrapper(answer);
      try {
        const r = await runOnly(w.url);
        expect(r.status, JSON.stringify(answer)).toBe('fail');
        expect(r.message).toMatch(/expected a 4xx business refusal/);
      } finally {
        w.server.close();
      }
    }
  });

  it('a failed check becomes a <failure> in the JUnit XML and NOT PASSED in the PDF', async () => {
    const w = await wrapper({ status: 200, body: { balance: 0, currency: 'USD' } });
    try {
      const r = await runBundle([...baseArgs(w.url), '--only', 'session', '--junit', 'bad.xml', '--pdf', 'bad.pdf']);
      expect(r.code).toBe(1);
      const cases = junitCases(readFileSync(path.join(dir, 'bad.xml'), 'utf8'));
      expect(cases.filter((c) => c.failed).map((c) => c.name.split(':')[0])).toEqual(['session.balance-unknown-player']);
      const shown = readPdf(readFileSync(path.join(dir, 'bad.pdf')));
      expect(shown).toMatch(/NOT PASSED: \d+ checks, \d+ passed, 1 failed/);
      expect(shown).toMatch(/FAIL +session\.balance-unknown-player/);
    } finally {
      w.server.close();
    }
  });
});

describe('the clauses a report names are explained to a casino', () => {
  it('every SPEC.md / CONTRACT.md part a check names has a row in the clause map of docs/integration.md', () => {
    const guide = readFileSync(path.resolve(ROOT, '../../docs/integration.md'), 'utf8');
    const map = /<!-- clause-map[^>]*-->([\s\S]*?)<!-- \/clause-map -->/.exec(guide)![1]!;
    const parts = new Set<string>();
    for (const c of CHECKS) {
      for (const m of c.clause.matchAll(/CONTRACT\.md (§\d+)/g)) parts.add(`CONTRACT.md ${m[1]}`);
      for (const m of c.clause.matchAll(/SPEC\.md (Wallet interface|Authentication|Limits|States|Errors|currency precision)/g)) parts.add(`SPEC.md ${m[1]}`);
    }
    expect(parts.size).toBeGreaterThan(5);
    for (const part of parts) {
      const [file, what] = [part.slice(0, part.indexOf(' ')), part.slice(part.indexOf(' ') + 1)];
      const row = map.split('\n').find((l) => l.includes(file) && l.includes(what));
      expect(row, part).toBeDefined();
    }
  });
});
