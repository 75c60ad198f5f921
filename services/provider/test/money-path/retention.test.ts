/**
 * Retention of idempotency records (issue 14 item 4): the cron pass removes the records older than
 * IDEMPOTENCY_RETENTION_HOURS whose work is over, only those of the pass's operator when it names
 * one, and never the record of an open round. A key still within the period replays its answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let a: Player;
let b: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'ret-a' }, { operatorId: 'ret-b' }]);
  a = await w.player('ret-a1', { operatorId: 'ret-a' });
  b = await w.player('ret-b1', { operatorId: 'ret-b' });
});
afterAll(async () => w?.close());

const db = () => w.t.services.db;
const records = async (operatorId: string) =>
  (await db()('idempotency_records').where({ operator_id: operatorId }).orderBy('id')) as { idempotency_key: string; round_id: string | null }[];
/** Backdates a record past the retention period (7 days by default). */
const age = (key: string, days: number) =>
  db()('idempotency_records')
    .where({ idempotency_key: key })
    .update({ created_at: db().raw(`now() - interval '${days} days'`) });

describe('idempotency records are kept for IDEMPOTENCY_RETENTION_HOURS (7 days by default)', () => {
  it('the cron pass removes the old records of finished work, of its operator only; an open round keeps its record; a recent key still replays', async () => {
    expect(w.t.services.config.idempotencyRetentionHours).toBe(168);
    const oldA = await w.bet(a, 'dice', 1, { target: 50, direction: 'over' }, 'ret-old-a');
    const recentA = await w.bet(a, 'dice', 1, { target: 50, direction: 'over' }, 'ret-recent-a');
    const oldB = await w.bet(b, 'dice', 1, { target: 50, direction: 'over' }, 'ret-old-b');
    for (const r of [oldA, recentA, oldB]) expect(r.status, r.text).toBe(200);
    const mines = await w.call('POST', '/api/mines/rounds', { sessionId: a.sessionId, amount: 1, mineCount: 3, idempotencyKey: 'ret-open-mines' });
    expect(mines.status, mines.text).toBe(200);
    expect(mines.body.roundStatus).toBe('active');
    await age('ret-old-a', 8);
    await age('ret-old-b', 8);
    await age('ret-open-mines', 30);

    // a pass scoped to ret-b removes only ret-b's old record
    expect((await w.cron('operatorId=ret-b&limit=10')).status).toBe(200);
    expect((await records('ret-b')).map((r) => r.idempotency_key)).toEqual([]);
    expect((await records('ret-a')).map((r) => r.idempotency_key).sort()).toEqual(['ret-old-a', 'ret-open-mines', 'ret-recent-a']);

    expect((await w.cron('operatorId=ret-a&limit=10')).status).toBe(200);
    // the open Mines round keeps its record whatever its age; the recent one stays
    expect((await records('ret-a')).map((r) => r.idempotency_key).sort()).toEqual(['ret-open-mines', 'ret-recent-a']);

    const replay = await w.bet(a, 'dice', 1, { target: 50, direction: 'over' }, 'ret-recent-a');
    expect(replay.body).toEqual(recentA.body);
    // rounds and their callbacks are the audit: never removed
    const round = await w.round(oldA.body.roundId!);
    expect(round.status).toBe(200);
  });
});
