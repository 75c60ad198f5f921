/**
 * The reports a casino's CI and its compliance team file: JUnit XML (one <testcase> per check,
 * grouped in one <testsuite> per category, the form every CI server reads) and a one-page-or-more
 * PDF summary to print and sign (verdict, target, counts per category, every check that did not
 * pass). Both come from the masked report, like the text, JSON and HTML forms.
 */
import { deflateSync } from 'node:zlib';
import { figuresText } from './report.js';
import type { CheckResult, Report } from './runner.js';

/** Characters XML 1.0 cannot carry at all (control characters but tab, LF, CR; lone surrogates) become U+FFFD. */
function xmlSafe(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const ok = c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000;
    out += ok ? ch : '\uFFFD';
  }
  return out;
}

const xml = (text: string) => xmlSafe(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

function exchangesText(r: CheckResult): string {
  return r.exchanges
    .map((ex) => {
      const answer = ex.response.status === null ? `no answer (${ex.response.error ?? 'error'})` : `HTTP ${ex.response.status}`;
      return `→ ${ex.request.method} ${ex.request.url} [${ex.label}]\n${ex.request.body}\n← ${answer} in ${ex.ms} ms${ex.response.body ? `: ${ex.response.body}` : ''}`;
    })
    .join('\n\n');
}

/** JUnit XML: a <testsuites> with one <testsuite> per category; a failed check is a <failure>, a skipped one <skipped>. */
export function junitReport(report: Report): string {
  const byCategory = new Map<string, CheckResult[]>();
  for (const r of report.checks) byCategory.set(r.category, [...(byCategory.get(r.category) ?? []), r]);
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const suites = [...byCategory].map(([category, checks]) => {
    const cases = checks.map((r) => {
      const f = figuresText(r);
      const body =
        r.status === 'fail'
          ? `\n      <failure message="${xml(r.message)}" type="${xml(r.clause)}">${xml(`${r.message}\nclause: ${r.clause}${f ? `\nfigures: ${f}` : ''}\n\n${exchangesText(r)}`)}</failure>\n    `
          : r.status === 'skip'
            ? `\n      <skipped message="${xml(r.message)}"/>\n    `
            : f || r.message
              ? `\n      <system-out>${xml([r.message, f].filter(Boolean).join('\n'))}</system-out>\n    `
              : '';
      return `    <testcase classname="wallet-check.${xml(category)}" name="${xml(`${r.id}: ${r.title}`)}" time="${seconds(r.ms)}">${body}</testcase>`;
    });
    const count = (s: string) => checks.filter((r) => r.status === s).length;
    const time = checks.reduce((a, r) => a + r.ms, 0);
    return `  <testsuite name="wallet-check.${xml(category)}" tests="${checks.length}" failures="${count('fail')}" errors="0" skipped="${count('skip')}" time="${seconds(time)}" timestamp="${xml(report.startedAt.replace(/Z$/, ''))}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const s = report.summary;
  const total = report.checks.reduce((a, r) => a + r.ms, 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="wallet-check ${xml(report.target.operatorId)}" tests="${s.total}" failures="${s.failed}" errors="0" skipped="${s.skipped}" time="${seconds(total)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

// ------------------------------------------------------------------------------------- PDF

/** Text for a PDF string in WinAnsi (Helvetica's encoding): what it lacks becomes '?'. */
function pdfText(text: string): string {
  const winAnsi: Record<string, number> = {
    '€': 0x80,
    '‚': 0x82,
    '„': 0x84,
    '…': 0x85,
    '–': 0x96,
    '—': 0x97,
    '‘': 0x91,
    '’': 0x92,
    '“': 0x93,
    '”': 0x94,
    '•': 0x95,
    '™': 0x99,
  };
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const byte = code === 0x2192 ? null : (winAnsi[ch] ?? (code >= 0x20 && code <= 0x7e ? code : code >= 0xa0 && code <= 0xff ? code : null));
    const b = byte ?? (code === 0x2192 ? 0x3e : 0x3f); // → as '>', the rest '?'
    out += b === 0x28 || b === 0x29 || b === 0x5c ? `\\${String.fromCharCode(b)}` : b < 0x80 ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`;
  }
  return out;
}

/** Helvetica's widths (1/1000 em) are not embedded; an average keeps wrapping on the safe side. */
function wrap(text: string, size: number, width: number): string[] {
  const max = Math.max(10, Math.floor(width / (size * 0.55)));
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/)) {
      for (let w = word; w.length > 0;) {
        const room = line ? max - line.length - 1 : max;
        if (w.length <= room) {
          line = line ? `${line} ${w}` : w;
          w = '';
        } else if (line) {
          lines.push(line);
          line = '';
        } else {
          lines.push(w.slice(0, max));
          w = w.slice(max);
        }
      }
    }
    lines.push(line);
  }
  return lines;
}

type Line = { text: string; size: number; bold?: boolean; color?: [number, number, number]; gap?: number };

/** A PDF 1.4 of A4 pages with Helvetica text: objects, a cross-reference table with exact offsets, a trailer. */
function pdfDocument(lines: Line[], footer: string): Buffer {
  const W = 595.28;
  const H = 841.89;
  const M = 56;
  const pages: string[][] = [[]];
  let y = H - M;
  for (const l of lines) {
    const lead = l.size * 1.35 + (l.gap ?? 0);
    for (const part of wrap(l.text, l.size, W - 2 * M)) {
      if (y - lead < M + 24) {
        pages.push([]);
        y = H - M;
      }
      y -= lead;
      const [r, g, b] = l.color ?? [0.1, 0.12, 0.14];
      pages[pages.length - 1]!.push(`${r} ${g} ${b} rg BT /${l.bold ? 'F2' : 'F1'} ${l.size} Tf ${M} ${y.toFixed(2)} Td (${pdfText(part)}) Tj ET`);
    }
  }
  const objects: Buffer[] = [];
  const add = (body: string | Buffer) => objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body) && objects.length;
  const catalog = add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, written once the pages are known
  const f1 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const f2 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const info = add(`<< /Title (${pdfText('Wallet conformance summary')}) /Producer (${pdfText('@gp/wallet-check')}) >>`);
  const pageIds: number[] = [];
  pages.forEach((ops, i) => {
    const content = [...ops, `0.4 0.4 0.4 rg BT /F1 8 Tf ${M} 30 Td (${pdfText(`${footer} - page ${i + 1} of ${pages.length}`)}) Tj ET`].join('\n');
    const data = deflateSync(Buffer.from(content, 'latin1'));
    const stream = Buffer.concat([
      Buffer.from(`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]);
    const c = add(stream);
    pageIds.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${W} ${H}] /Resources << /Font << /F1 ${f1} 0 R /F2 ${f2} 0 R >> >> /Contents ${c} 0 R >>`));
  });
  objects[1] = Buffer.from(`<< /Type /Pages /Kids [${pageIds.map((p) => `${p} 0 R`).join(' ')}] /Count ${pageIds.length} >>`, 'latin1');
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(obj);
    offset += obj.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** The printable summary: what a compliance team files with the go-live ticket. */
export function pdfSummary(report: Report): Buffer {
  const t = report.target;
  const s = report.summary;
  const green: [number, number, number] = [0.08, 0.39, 0.18];
  const red: [number, number, number] = [0.54, 0.11, 0.11];
  const lines: Line[] = [
    { text: 'Wallet conformance summary', size: 18, bold: true },
    {
      text: `${report.ok ? 'PASSED' : 'NOT PASSED'}: ${s.total} checks, ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`,
      size: 13,
      bold: true,
      color: report.ok ? green : red,
      gap: 6,
    },
    { text: `Wallet: ${t.url}`, size: 10, gap: 6 },
    {
      text: `Operator profile: ${t.operatorId}${t.playerRef ? `    Test player: ${t.playerRef}` : ''}${t.currency ? `    Currency: ${t.currency} (${t.decimals} decimals)` : ''}`,
      size: 10,
    },
    { text: `Run: ${report.startedAt} to ${report.finishedAt} with ${report.tool.name} ${report.tool.version}`, size: 10 },
    {
      text: `Settings: test amount ${report.settings.amount}, callback timeout ${report.settings.timeoutMs} ms, load ${report.settings.loadConcurrency} in flight for ${report.settings.loadSeconds} s`,
      size: 10,
    },
    { text: 'By category', size: 12, bold: true, gap: 10 },
  ];
  const categories = [...new Set(report.checks.map((r) => r.category))];
  for (const c of categories) {
    const rs = report.checks.filter((r) => r.category === c);
    const passed = rs.filter((r) => r.status === 'pass').length;
    lines.push({ text: `${c}: ${passed} of ${rs.length} passed`, size: 10, color: passed === rs.length ? green : red });
  }
  const bad = report.checks.filter((r) => r.status !== 'pass');
  lines.push({ text: bad.length ? 'Checks that did not pass' : 'Every check passed.', size: 12, bold: true, gap: 10 });
  for (const r of bad) {
    lines.push({ text: `${r.status === 'fail' ? 'FAIL' : 'skip'}  ${r.id}: ${r.title}`, size: 10, bold: true, gap: 3 });
    lines.push({ text: `clause: ${r.clause}`, size: 9 });
    lines.push({ text: r.message, size: 9 });
  }
  lines.push({ text: 'Passed checks', size: 12, bold: true, gap: 10 });
  for (const r of report.checks.filter((x) => x.status === 'pass')) lines.push({ text: `pass  ${r.id}${r.message ? `: ${r.message}` : ''}`, size: 8 });
  lines.push({ text: 'Secrets, launch tokens and signatures are masked in every report. The JSON report holds every request and answer.', size: 8, gap: 10 });
  lines.push({ text: 'Reviewed by: ________________________   Date: ____________   Signature: ____________________', size: 10, gap: 24 });
  return pdfDocument(lines, `wallet-check ${t.operatorId} ${report.startedAt}`);
}
