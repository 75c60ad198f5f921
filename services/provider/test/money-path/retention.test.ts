/**
 * Retention of idempotency records (issue 14 item 4). Records are partitioned by the week their
 * session began (migration 20261129100000) and go a week at a time (test/store/
 * idempotency-partitions.test.ts); the sessions from before that (ids that are not UUIDv7) keep
 * theirs in the legacy partition, where the cron pass removes the records older than
 * IDEMPOTENCY_RETENTION_HOURS whose work is over, only those of the pass's operator when it names
 * one, and never the record of an open round. A key still within the period replays its answer.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let a: Player;
let b: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'ret-a' }, { operatorId: 'ret-b' }]);
  a = await legacySession(await w.player('ret-a1', { operatorId: 'ret-a' }));
  b = await legacySession(await w.player('ret-b1', { operatorId: 'ret-b' }));
});
afterAll(async () => w?.close());

const db = () => w.t.services.db;
/** The same session under a UUIDv4 id, as the sessions from before migration 20261129100000: its records live in the legacy partition. */
async function legacySession(p: Player): Promise<Player> {
  const id = randomUUID();
  await db().raw(
    `INSERT INTO sessions SELECT (jsonb_populate_record(NULL::sessions, to_jsonb(s) || jsonb_build_object('session_id', ?::text))).* FROM sessions s WHERE session_id = ?`,
    [id, p.sessionId],
  );
  return { ...p, sessionId: id };
}
const records = async (operatorId: string) =>
  (await db()('idempotency_records').where({ operator_id: operatorId }).orderBy('id')) as { idempotency_key: string; round_id: string | null }[];
/** Backdates a record past the retention period (7 days by default). */
const age = (key: string, days: number) =>
  db()('idempotency_records')
    .where({ idempotency_key: key })
    .update({ created_at: db().raw(`now() - interval '${days} days'`) });

describe('idempotency records are kept for IDEMPOTENCY_RETENTION_HOURS (7 days by default)', () => {
  it('legacy sessions: the cron pass removes the old records of finished work, of its operator only; an open round keeps its record; a recent key still replays', async () => {
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

    expect(
      ((await db().raw(`SELECT DISTINCT tableoid::regclass::text AS t FROM idempotency_records WHERE operator_id = 'ret-a'`)) as { rows: { t: string }[] })
        .rows,
    ).toEqual([{ t: 'idempotency_records_legacy' }]);
    const replay = await w.bet(a, 'dice', 1, { target: 50, direction: 'over' }, 'ret-recent-a');
    expect(replay.body).toEqual(recentA.body);
    // rounds and their callbacks are the audit: never removed
    const round = await w.round(oldA.body.roundId!);
    expect(round.status).toBe(200);
  });

  it("a session's records live in the week it began, and the cron pass keeps a week whose sessions may still be live", async () => {
    const p = await w.player('ret-a2', { operatorId: 'ret-a' });
    expect(p.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-[0-9a-f]{12}$/);
    const bet = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' }, 'ret-week');
    expect(bet.status, bet.text).toBe(200);
    expect((await w.cron('operatorId=ret-a&limit=10')).status).toBe(200);
    const rows = (await db().raw(`SELECT tableoid::regclass::text AS t, state FROM idempotency_records WHERE session_id = ?`, [p.sessionId])) as {
      rows: { t: string; state: string }[];
    };
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]!.t).toMatch(/^idempotency_records_\d{4}_\d{2}_\d{2}$/);
    expect(rows.rows[0]!.state).toBe('in_progress'); // a settled bet's key keeps its claim: its replay rebuilds the answer (replay-rebuilt.test.ts)
    expect((await w.bet(p, 'dice', 1, { target: 50, direction: 'over' }, 'ret-week')).body).toEqual(bet.body);
  });
});
