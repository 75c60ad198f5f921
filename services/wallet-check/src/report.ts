/**
 * The three forms of a report: the summary table for a terminal (with the requests and answers
 * of each failed check), JSON for machines, and a self-contained HTML page to attach to a go-live
 * ticket. All of them are built from the masked report: nothing secret reaches them.
 */
import type { MaskedExchange } from './mask.js';
import type { CheckResult, Report } from './runner.js';

const STATUS_TEXT = { pass: 'pass', fail: 'FAIL', skip: 'skip' } as const;

function clip(text: string, width: number): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > width ? `${oneLine.slice(0, width - 1)}…` : oneLine;
}

function exchangeText(ex: MaskedExchange): string[] {
  const headers = Object.entries(ex.request.headers)
    .filter(([k]) => k !== 'content-type')
    .map(([k, v]) => `${k}: ${v}`)
    .join('  ');
  const answer = ex.response.status === null ? `no answer (${ex.response.error ?? 'error'})` : `HTTP ${ex.response.status}`;
  return [
    `    → ${ex.request.method} ${ex.request.url}   [${ex.label}]`,
    `      ${headers}`,
    `      ${ex.request.body}`,
    `    ← ${answer} in ${ex.ms} ms${ex.response.body ? `: ${ex.response.body}` : ''}`,
  ];
}

export function figuresText(r: CheckResult): string {
  if (!r.figures) return '';
  return Object.entries(r.figures)
    .map(([k, v]) =>
      typeof v === 'object'
        ? `${k} ${Object.entries(v)
            .map(([a, b]) => `${a}=${b}`)
            .join(' ')}`
        : `${k}=${v}`,
    )
    .join('; ');
}

/** The summary table, then the details of every check that did not pass. */
export function textReport(report: Report): string {
  const t = report.target;
  const lines: string[] = [];
  lines.push(
    `${report.tool.name} ${report.tool.version}: ${t.url}, operator ${t.operatorId}${t.playerRef ? `, player ${t.playerRef}` : ''}${t.currency ? `, ${t.currency} (${t.decimals} decimals)` : ''}`,
  );
  lines.push(
    `test amount ${report.settings.amount}, callback timeout ${report.settings.timeoutMs} ms, load ${report.settings.loadConcurrency} in flight for ${report.settings.loadSeconds} s`,
  );
  lines.push('');
  const idWidth = Math.max(...report.checks.map((r) => r.id.length), 5);
  lines.push(`${'     '}  ${'check'.padEnd(idWidth)}  ${'clause'.padEnd(44)}  result`);
  for (const r of report.checks) {
    const result = r.status === 'pass' ? r.message || 'ok' : r.message;
    lines.push(`${STATUS_TEXT[r.status].padEnd(5)}  ${r.id.padEnd(idWidth)}  ${clip(r.clause, 44).padEnd(44)}  ${clip(result, 90)}`);
  }
  const s = report.summary;
  lines.push('');
  lines.push(`${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
  const bad = report.checks.filter((r) => r.status !== 'pass');
  if (bad.length) {
    lines.push('', 'Checks that did not pass', '------------------------');
    for (const r of bad) {
      lines.push('', `${STATUS_TEXT[r.status]} ${r.id}: ${r.title}`, `  clause: ${r.clause}`, `  ${r.message}`);
      const f = figuresText(r);
      if (f) lines.push(`  figures: ${f}`);
      for (const ex of r.exchanges) lines.push(...exchangeText(ex));
    }
  }
  return lines.join('\n');
}

export function jsonReport(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const esc = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function exchangeHtml(ex: MaskedExchange): string {
  const headers = Object.entries(ex.request.headers)
    .map(([k, v]) => `${esc(k)}: ${esc(v)}`)
    .join('\n');
  const answer = ex.response.status === null ? `no answer (${esc(ex.response.error ?? 'error')})` : `HTTP ${ex.response.status}`;
  return `<div class="ex"><div class="lbl">${esc(ex.label)} <span class="ms">${ex.ms} ms</span></div>
<pre class="req">${esc(ex.request.method)} ${esc(ex.request.url)}\n${headers}\n\n${esc(ex.request.body)}</pre>
<pre class="res">${answer}${ex.response.contentType ? `  (${esc(ex.response.contentType)})` : ''}\n${esc(ex.response.body)}</pre></div>`;
}

/** One HTML file, no external resources: styles inline, no scripts. */
export function htmlReport(report: Report): string {
  const t = report.target;
  const s = report.summary;
  const rows = report.checks
    .map((r) => {
      const f = figuresText(r);
      return `<tr class="${r.status}"><td><span class="badge ${r.status}">${STATUS_TEXT[r.status]}</span></td><td><code>${esc(r.id)}</code><div class="title">${esc(r.title)}</div></td><td class="clause">${esc(r.clause)}</td>
<td>${esc(r.message || 'ok')}${f ? `<div class="fig">${esc(f)}</div>` : ''}${
        r.exchanges.length
          ? `<details${r.status === 'pass' ? '' : ' open'}><summary>${r.exchanges.length} request${r.exchanges.length > 1 ? 's' : ''}</summary>${r.exchanges.map(exchangeHtml).join('')}</details>`
          : ''
      }</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Wallet conformance: ${esc(t.operatorId)} — ${report.ok ? 'all checks passed' : `${s.failed + s.skipped} of ${s.total} not passed`}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem;color:#1b1f24;background:#fff}
h1{font-size:1.4rem;margin:0 0 .3rem}.meta{color:#555;margin:.1rem 0}
.verdict{display:inline-block;margin:1rem 0;padding:.5rem .9rem;border-radius:6px;font-weight:600}
.verdict.ok{background:#e3f6e8;color:#14632d}.verdict.bad{background:#fde8e8;color:#8a1c1c}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.45rem .5rem;border-bottom:1px solid #e4e7eb}
th{background:#f5f7f9;font-weight:600}.title{color:#444;font-size:.92em}.clause{color:#555;font-size:.9em;max-width:22rem}
.badge{display:inline-block;min-width:3rem;text-align:center;border-radius:4px;padding:.05rem .35rem;font-weight:600;font-size:.85em}
.badge.pass{background:#e3f6e8;color:#14632d}.badge.fail{background:#fde8e8;color:#8a1c1c}.badge.skip{background:#f1f1f1;color:#555}
tr.fail td{background:#fffafa}.fig{color:#334;font-size:.9em;margin-top:.2rem}
details{margin-top:.4rem}summary{cursor:pointer;color:#0b5cad}
.ex{margin:.4rem 0 .8rem}.lbl{font-weight:600;font-size:.9em}.ms{color:#777;font-weight:400}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;border:1px solid #e4e7eb;border-radius:4px;padding:.4rem .5rem;margin:.2rem 0;font-size:12px}
pre.res{background:#fbfbf4}
</style></head><body>
<h1>Wallet conformance report</h1>
<p class="meta">Wallet <code>${esc(t.url)}</code>, operator <code>${esc(t.operatorId)}</code>${t.playerRef ? `, test player <code>${esc(t.playerRef)}</code>` : ''}${t.currency ? `, ${esc(t.currency)} (${t.decimals} decimals)` : ''}</p>
<p class="meta">${esc(report.tool.name)} ${esc(report.tool.version)}, ${esc(report.startedAt)} to ${esc(report.finishedAt)}; test amount ${esc(report.settings.amount)}, callback timeout ${report.settings.timeoutMs} ms, load ${report.settings.loadConcurrency} in flight for ${report.settings.loadSeconds} s</p>
<div class="verdict ${report.ok ? 'ok' : 'bad'}">${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped</div>
<p class="meta">Secrets, launch tokens and signatures are masked. Clauses refer to SPEC.md and CONTRACT.md of the game provider.</p>
<table><thead><tr><th>status</th><th>check</th><th>clause</th><th>result</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}
