/**
 * The signature snippets of docs/integration.md (Node, Python, PHP, Java, Go, C#), checked
 * against the provider's own signer (src/wallet/signing.ts):
 *  - every snippet states the worked example's signature, and that is what our signer computes
 *    for it (the known-answer vector a casino can run in its own language);
 *  - each snippet whose runtime is on this machine is run as printed, through a small driver, on
 *    vectors our signer made (unicode and CRLF bodies, an empty body, a signed GET with a query):
 *    its `sign` must give our signature byte for byte and its `verify` must accept it and refuse
 *    a tampered body, another secret, uppercase hex, a truncated and a padded signature.
 * .ci/run installs PHP (php-cli, seconds); Python and Java come with the machine; Go and C# (Mono)
 * run where installed and are otherwise held to the known-answer vector and the shape below.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/wallet/signing.js';

const root = new URL('../../../../', import.meta.url);
const guide = readFileSync(new URL('docs/integration.md', root), 'utf8');
const LANGS = ['node', 'python', 'php', 'java', 'go', 'csharp'] as const;
type Lang = (typeof LANGS)[number];

const snippets = new Map<Lang, string>();
for (const m of guide.matchAll(/<!-- signature-snippet: (\w+) -->\s*```\w+\n([\s\S]*?)```\s*<!-- \/signature-snippet -->/g)) snippets.set(m[1] as Lang, m[2]!);

/** The worked example of the guide (its BODY='…' line and printf arguments). */
const worked = (() => {
  const block = /<!-- signature-example[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(guide)![1]!;
  const body = /^BODY='(.*)'$/m.exec(block)![1]!;
  const [, p, ts, nonce, secret] = /printf 'POST\\n(\/wallet\/[a-z-]+)\\n(\d+)\\n([A-Za-z0-9_-]+)\\n%s' "\$BODY" \| openssl dgst -sha256 -hmac (\S+)/.exec(
    block,
  )!;
  return { secret: secret!, method: 'POST', path: p!, timestamp: ts!, nonce: nonce!, body: body };
})();

interface Vector {
  secret: string;
  method: string;
  path: string;
  timestamp: string;
  nonce: string;
  body: Buffer;
  signature: string;
  valid: boolean;
}

function vectors(): Vector[] {
  const base = [
    { ...worked, body: Buffer.from(worked.body) },
    {
      secret: 'a'.repeat(64),
      method: 'POST',
      path: '/wallet/debit',
      timestamp: '1764288000',
      nonce: 'Zx_9-abcdefghijklmnop',
      body: Buffer.from('{"playerRef":"Zoë 🎲","amount":0.00000001,"currency":"BTC"}'),
    },
    {
      secret: 'secret with spaces & ünïcode',
      method: 'POST',
      path: '/wallet/rollback',
      timestamp: '1800000000',
      nonce: 'n'.repeat(128),
      body: Buffer.from('{\r\n  "debitIdempotencyKey": "r:debit"\r\n}\r\n'),
    },
    { secret: 's', method: 'POST', path: '/wallet/balance', timestamp: '0', nonce: '0123456789abcdef', body: Buffer.alloc(0) },
    {
      secret: 'casino-secret',
      method: 'GET',
      path: '/api/reconciliation?operatorId=acme-usd&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z',
      timestamp: '1764288000',
      nonce: 'reconcile-0000000001',
      body: Buffer.alloc(0),
    },
  ];
  const out: Vector[] = [];
  for (const v of base) {
    const good = sign(v.secret, v.method, v.path, v.timestamp, v.nonce, v.body.toString('utf8'));
    out.push({ ...v, signature: good, valid: true });
    out.push({ ...v, body: Buffer.concat([v.body, Buffer.from(' ')]), signature: good, valid: false });
    out.push({ ...v, secret: `${v.secret}x`, signature: good, valid: false });
    out.push({ ...v, signature: good.toUpperCase(), valid: false });
    out.push({ ...v, signature: good.slice(0, 63), valid: false });
    out.push({ ...v, signature: `${good}\n`, valid: false });
  }
  return out;
}

/** One vector a line: secret, method, path, timestamp, nonce, body, signature, each base64 and tab-separated. */
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const vectorLines = (vs: Vector[]) =>
  vs.map((v) => [v.secret, v.method, v.path, v.timestamp, v.nonce, v.body, v.signature].map(b64).join('\t')).join('\n') + '\n';

/** Drivers: read the vectors on stdin, print "<sign(...)> <verify(...)>" per line, using the snippet as printed. */
const DRIVERS: Record<Lang, { runtime: string[]; run(dir: string, snippet: string): { cmd: string; args: string[] } | null }> = {
  node: {
    runtime: [process.execPath],
    run(dir, snippet) {
      writeFileSync(path.join(dir, 'gp-signature.mjs'), snippet);
      writeFileSync(
        path.join(dir, 'driver.mjs'),
        `import { readFileSync } from 'node:fs';
import { sign, verify } from './gp-signature.mjs';
const d = (s) => Buffer.from(s, 'base64');
for (const line of readFileSync(0, 'utf8').split('\\n').filter(Boolean)) {
  const [secret, method, p, ts, nonce, body, sig] = line.split('\\t').map(d);
  const a = [secret, method, p, ts, nonce].map(String);
  console.log(sign(...a, body) + ' ' + verify(...a, body, String(sig)));
}
`,
      );
      return { cmd: process.execPath, args: [path.join(dir, 'driver.mjs')] };
    },
  },
  python: {
    runtime: ['python3'],
    run(dir, snippet) {
      writeFileSync(path.join(dir, 'gp_signature.py'), snippet);
      writeFileSync(
        path.join(dir, 'driver.py'),
        `import base64, sys
from gp_signature import sign, verify
for line in sys.stdin.read().splitlines():
    f = [base64.b64decode(x) for x in line.split("\\t")]
    a = [x.decode("utf-8") for x in f[:5]]
    print(sign(*a, f[5]), "true" if verify(*a, f[5], f[6].decode("utf-8")) else "false")
`,
      );
      return { cmd: 'python3', args: [path.join(dir, 'driver.py')] };
    },
  },
  php: {
    runtime: ['php'],
    run(dir, snippet) {
      writeFileSync(path.join(dir, 'gp_signature.php'), snippet);
      writeFileSync(
        path.join(dir, 'driver.php'),
        `<?php
require __DIR__ . '/gp_signature.php';
foreach (explode("\\n", trim(stream_get_contents(STDIN))) as $line) {
    $f = array_map('base64_decode', explode("\\t", $line));
    echo gp_sign($f[0], $f[1], $f[2], $f[3], $f[4], $f[5]), ' ', gp_verify($f[0], $f[1], $f[2], $f[3], $f[4], $f[5], $f[6]) ? 'true' : 'false', "\\n";
}
`,
      );
      return { cmd: 'php', args: [path.join(dir, 'driver.php')] };
    },
  },
  java: {
    runtime: ['javac', 'java'],
    run(dir, snippet) {
      writeFileSync(path.join(dir, 'GpSignature.java'), snippet);
      writeFileSync(
        path.join(dir, 'Driver.java'),
        `import java.io.*; import java.nio.charset.StandardCharsets; import java.util.Base64;
public class Driver { public static void main(String[] x) throws Exception {
  BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
  for (String line; (line = in.readLine()) != null; ) { if (line.isEmpty()) continue;
    String[] p = line.split("\\t", -1); byte[][] f = new byte[p.length][];
    for (int i = 0; i < p.length; i++) f[i] = Base64.getDecoder().decode(p[i]);
    String[] s = new String[7]; for (int i = 0; i < 7; i++) s[i] = new String(f[i], StandardCharsets.UTF_8);
    System.out.println(GpSignature.sign(s[0], s[1], s[2], s[3], s[4], f[5]) + " " + GpSignature.verify(s[0], s[1], s[2], s[3], s[4], f[5], s[6]));
  } } }
`,
      );
      execFileSync('javac', ['-d', dir, path.join(dir, 'GpSignature.java'), path.join(dir, 'Driver.java')], { stdio: 'pipe' });
      return { cmd: 'java', args: ['-cp', dir, 'Driver'] };
    },
  },
  go: {
    runtime: ['go'],
    run(dir, snippet) {
      mkdirSync(path.join(dir, 'gpsignature'));
      writeFileSync(path.join(dir, 'go.mod'), 'module gpcheck\n\ngo 1.16\n');
      writeFileSync(path.join(dir, 'gpsignature', 'gpsignature.go'), snippet);
      writeFileSync(
        path.join(dir, 'main.go'),
        `package main
import ("bufio"; "encoding/base64"; "fmt"; "os"; "strings"; "gpcheck/gpsignature")
func main() {
	sc := bufio.NewScanner(os.Stdin); sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() { if sc.Text() == "" { continue }
		p := strings.Split(sc.Text(), "\\t"); f := make([][]byte, len(p))
		for i := range p { f[i], _ = base64.StdEncoding.DecodeString(p[i]) }
		s := func(i int) string { return string(f[i]) }
		fmt.Println(gpsignature.Sign(s(0), s(1), s(2), s(3), s(4), f[5]), gpsignature.Verify(s(0), s(1), s(2), s(3), s(4), f[5], s(6)))
	}
}
`,
      );
      execFileSync('go', ['build', '-o', path.join(dir, 'driver'), '.'], {
        cwd: dir,
        stdio: 'pipe',
        env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: path.join(dir, '.gocache') },
      });
      return { cmd: path.join(dir, 'driver'), args: [] };
    },
  },
  csharp: {
    runtime: ['mcs', 'mono'],
    run(dir, snippet) {
      writeFileSync(path.join(dir, 'GpSignature.cs'), snippet);
      writeFileSync(
        path.join(dir, 'Driver.cs'),
        `using System; using System.Text;
public static class Driver { public static void Main() {
  string line;
  while ((line = Console.In.ReadLine()) != null) { if (line.Length == 0) continue;
    var p = line.Split('\\t'); var f = new byte[p.Length][];
    for (int i = 0; i < p.Length; i++) f[i] = Convert.FromBase64String(p[i]);
    Func<int, string> s = i => Encoding.UTF8.GetString(f[i]);
    Console.WriteLine(GpSignature.Sign(s(0), s(1), s(2), s(3), s(4), f[5]) + " " + (GpSignature.Verify(s(0), s(1), s(2), s(3), s(4), f[5], s(6)) ? "true" : "false"));
  } } }
`,
      );
      execFileSync('mcs', ['-nologo', `-out:${path.join(dir, 'driver.exe')}`, path.join(dir, 'GpSignature.cs'), path.join(dir, 'Driver.cs')], {
        stdio: 'pipe',
      });
      return { cmd: 'mono', args: [path.join(dir, 'driver.exe')] };
    },
  },
};

const has = (cmd: string) => cmd === process.execPath || spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

describe('docs/integration.md signature snippets', () => {
  it('has one snippet for each of Node, Python, PHP, Java, Go and C#', () => {
    expect([...snippets.keys()].sort()).toEqual([...LANGS].sort());
  });

  it.each(LANGS)("%s: states the worked example's signature, which is what the provider computes (the known-answer vector)", (lang) => {
    const snippet = snippets.get(lang)!;
    const expected = sign(worked.secret, worked.method, worked.path, worked.timestamp, worked.nonce, worked.body);
    const stated = [...snippet.matchAll(/"([0-9a-f]{64})"|'([0-9a-f]{64})'/g)].map((m) => m[1] ?? m[2]);
    expect(stated).toEqual([expected]);
    for (const part of [worked.secret, worked.path, worked.timestamp, worked.nonce]) expect(snippet).toContain(part);
    // The recipe's shape, also for the languages this machine cannot run: HMAC-SHA256 over
    // METHOD\nPATH\nTIMESTAMP\nNONCE\n + the raw body, lowercase hex, compared in constant time.
    expect(snippet).toMatch(/sha256|HmacSHA256|HMACSHA256/i);
    expect(snippet).toMatch(/\\n/);
    expect(snippet).toMatch(/\[0-9a-f\]\{64\}/);
    expect(snippet).toMatch(/timingSafeEqual|compare_digest|hash_equals|MessageDigest\.isEqual|hmac\.Equal|FixedTimeEquals/);
    expect(snippet).not.toMatch(/JSON\.stringify|json\.dumps|json_encode|==\s*signature\b|\.equals\(signature\)/);
  });

  const vs = vectors();
  it.each(LANGS)(
    '%s: run as printed where its runtime is installed, it signs like the provider and verifies only what it should',
    (lang) => {
      const driver = DRIVERS[lang];
      const missing = driver.runtime.filter((c) => !has(c));
      if (missing.length > 0) {
        console.log(`signature snippet ${lang}: ${missing.join(', ')} not installed here; held to the known-answer vector only`);
        return;
      }
      const dir = mkdtempSync(path.join(tmpdir(), `gp-snippet-${lang}-`));
      const { cmd, args } = driver.run(dir, snippets.get(lang)!)!;
      const out = execFileSync(cmd, args, { input: vectorLines(vs), encoding: 'utf8', cwd: dir, timeout: 60_000 });
      const lines = out.trim().split('\n');
      expect(lines).toHaveLength(vs.length);
      lines.forEach((line, i) => {
        const v = vs[i]!;
        const [signed, verified] = line.trim().split(' ');
        expect(signed, `${lang} vector ${i}`).toBe(sign(v.secret, v.method, v.path, v.timestamp, v.nonce, v.body.toString('utf8')));
        expect(verified?.toLowerCase(), `${lang} vector ${i} (${v.valid ? 'valid' : 'must be refused'})`).toBe(String(v.valid));
      });
    },
    120_000,
  );
});
