/**
 * The reconciliation's reads on a database holding the big scenario's history (issue 25: "the
 * console's searches keep working across partitions"): GET /api/reconciliation for the loaded
 * operator and for every operator (newest first by time, then id: the callbacks have no index on
 * id), a first page and ten pages deep by its cursor, and a day of the history by `from`/`to`. Each
 * answer's time and rows, printed beside the scenario; an answer that is not 200 or not a full page
 * is reported as such.
 */
import { request } from './client.js';

export async function timeReconciliationReads(origin: string, adminToken: string, operatorId: string): Promise<string> {
  const headers = { authorization: `Bearer ${adminToken}` };
  const day = new Date(Date.now() - 120 * 86_400_000); // inside the loaded history (180 to 90 days ago)
  const from = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate())).toISOString();
  const to = new Date(Date.parse(from) + 86_400_000).toISOString();
  const reads: [string, string][] = [
    ['one operator', `/api/reconciliation?operatorId=${operatorId}&limit=100`],
    ['every operator', '/api/reconciliation?limit=100'],
    ['one operator, a day of the history', `/api/reconciliation?operatorId=${operatorId}&from=${from}&to=${to}&limit=100`],
    ['every operator, a day of the history', `/api/reconciliation?from=${from}&to=${to}&limit=100`],
  ];
  const out: string[] = [];
  for (const [what, first] of reads) {
    let path = first;
    const times: number[] = [];
    let rows = 0;
    let problem = '';
    for (let page = 0; page < 10; page++) {
      const a = await request(origin, 'GET', path, undefined, headers);
      times.push(a.ms);
      const body = a.body as { rows?: unknown[]; nextCursor?: string | null };
      if (a.status !== 200 || !Array.isArray(body.rows)) {
        problem = ` (answer ${a.status} ${a.text.slice(0, 80)})`;
        break;
      }
      rows += body.rows.length;
      if (!body.nextCursor) break;
      path = `${first}&cursor=${encodeURIComponent(body.nextCursor)}`;
    }
    out.push(`${what}: first page ${times[0]!.toFixed(0)} ms, ${times.length} pages (${rows} rows) max ${Math.max(...times).toFixed(0)} ms${problem}`);
  }
  return `reconciliation reads on the loaded database: ${out.join('; ')}`;
}
