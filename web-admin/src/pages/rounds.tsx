/** Rounds: search with filters and cursor pagination; a round with its result, fairness proof, callback trail and replay link. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { GAME_TYPES } from '@gp/game-core/games';
import { Fragment, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, get, qs, type CallbackRecord, type RoundDetail, type RoundRow, type Answer } from '../api.js';
import { useAuth } from '../auth.js';
import { Badge, Card, DataTable, ErrorNote, Loading, PageHeader } from '../components.js';
import { money, short, STATUS_TONE, when, statusLabel } from '../format.js';
import { OperatorSelect } from './shared.js';
import { AdminRoundBoard, paramsText } from './round-board.js';

const STATUSES = ['active', 'settled', 'cashed_out', 'busted', 'credit_pending', 'rollback_pending', 'cancelled', 'error'];

const columns: ColumnDef<RoundRow, unknown>[] = [
  {
    header: 'Round',
    accessorKey: 'roundId',
    cell: (c) => (
      <Link to={`/rounds/${c.getValue<string>()}`} className="mono strong">
        {short(c.getValue<string>(), 13)}
      </Link>
    ),
  },
  { header: 'Time', accessorKey: 'createdAt', cell: (c) => <span className="nowrap">{when(c.getValue<string>())}</span> },
  { header: 'Operator', accessorKey: 'operatorId' },
  { header: 'Player', accessorKey: 'playerRef' },
  { header: 'Game', accessorKey: 'gameType', cell: (c) => <span className="cap">{c.getValue<string>()}</span> },
  {
    header: 'Stake',
    id: 'amount',
    meta: { align: 'right' },
    cell: (c) => `${money(c.row.original.amount, c.row.original.currency)} ${c.row.original.currency}`,
  },
  {
    header: 'Payout',
    id: 'payout',
    meta: { align: 'right' },
    cell: (c) => (c.row.original.payout === null ? '—' : `${money(c.row.original.payout, c.row.original.currency)} ${c.row.original.currency}`),
  },
  {
    header: 'Status',
    accessorKey: 'status',
    cell: (c) => <Badge tone={STATUS_TONE[c.getValue<string>()] ?? 'gray'}>{statusLabel(c.getValue<string>())}</Badge>,
  },
];

const toIso = (v: string | null) => (v ? new Date(v).toISOString() : undefined);

export function RoundsPage() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const filters = Object.fromEntries(['roundId', 'operatorId', 'playerRef', 'gameType', 'status', 'from', 'to'].map((k) => [k, params.get(k) ?? '']));
  const [draft, setDraft] = useState(filters);
  const q = useInfiniteQuery({
    queryKey: ['rounds', filters],
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      get<Answer<'searchRounds'>>(
        `/api/admin/rounds${qs({ ...filters, from: toIso(filters.from || null), to: toIso(filters.to || null), cursor: pageParam, limit: 50 })}`,
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = q.data?.pages.flatMap((p) => p.rounds) ?? [];
  const set = (k: string, v: string) => setDraft({ ...draft, [k]: v });
  return (
    <>
      <PageHeader title="Rounds" subtitle="Every bet and round, newest first" />
      <Card>
        <form
          className="filters"
          onSubmit={(e) => {
            e.preventDefault();
            setParams(Object.fromEntries(Object.entries(draft).filter(([, v]) => v)));
          }}
        >
          <label className="field inline grow">
            <span>Round id</span>
            <input value={draft.roundId} onChange={(e) => set('roundId', e.target.value.trim())} placeholder="exact id" data-testid="filter-roundId" />
          </label>
          <OperatorSelect value={draft.operatorId ?? ''} onChange={(v) => set('operatorId', v)} />
          <label className="field inline">
            <span>Player</span>
            <input value={draft.playerRef} onChange={(e) => set('playerRef', e.target.value)} placeholder="playerRef" data-testid="filter-player" />
          </label>
          <label className="field inline">
            <span>Game</span>
            <select value={draft.gameType} onChange={(e) => set('gameType', e.target.value)}>
              <option value="">All games</option>
              {GAME_TYPES.map((g) => (
                <option key={g} value={g}>
                  {g}
                </option>
              ))}
            </select>
          </label>
          <label className="field inline">
            <span>Status</span>
            <select value={draft.status} onChange={(e) => set('status', e.target.value)} data-testid="filter-status">
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusLabel(s)}
                </option>
              ))}
            </select>
          </label>
          <label className="field inline">
            <span>From</span>
            <input type="datetime-local" value={draft.from} onChange={(e) => set('from', e.target.value)} />
          </label>
          <label className="field inline">
            <span>To</span>
            <input type="datetime-local" value={draft.to} onChange={(e) => set('to', e.target.value)} />
          </label>
          <div className="filter-buttons">
            <button className="btn primary" type="submit" data-testid="rounds-search">
              Search
            </button>
            <button
              className="btn ghost"
              type="button"
              onClick={() => {
                setDraft(Object.fromEntries(Object.keys(draft).map((k) => [k, ''])));
                setParams({});
              }}
            >
              Clear
            </button>
          </div>
        </form>
      </Card>
      <ErrorNote error={q.error} />
      <Card>
        {q.isLoading ? (
          <Loading />
        ) : (
          <DataTable data={rows} columns={columns} empty="No rounds match" testId="rounds-table" onRowClick={(r) => void navigate(`/rounds/${r.roundId}`)} />
        )}
        <div className="table-foot">
          <span className="muted small">{rows.length} shown</span>
          {q.hasNextPage ? (
            <button className="btn secondary" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage} data-testid="rounds-more">
              {q.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </button>
          ) : null}
        </div>
      </Card>
    </>
  );
}

function Json({ value }: { value: unknown }) {
  return <pre className="json">{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>;
}

function Trail({ records }: { records: CallbackRecord[] }) {
  const [open, setOpen] = useState<number | null>(null);
  return (
    <div className="table-wrap">
      <table className="tbl" data-testid="callback-trail">
        <thead>
          <tr>
            <th>Callback</th>
            <th>Idempotency key</th>
            <th style={{ textAlign: 'right' }}>Attempts</th>
            <th style={{ textAlign: 'right' }}>HTTP</th>
            <th>Status</th>
            <th>Recorded</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {records.map((r, i) => (
            <Fragment key={r.idempotencyKey}>
              <tr>
                <td className="mono">
                  {r.method} {r.path}
                </td>
                <td className="mono small">{r.idempotencyKey}</td>
                <td style={{ textAlign: 'right' }}>{r.attemptCount}</td>
                <td style={{ textAlign: 'right' }}>{r.statusCode ?? '—'}</td>
                <td>
                  <Badge tone={STATUS_TONE[r.callbackStatus] ?? 'gray'}>{statusLabel(r.callbackStatus)}</Badge>
                  {r.errorMessage ? <div className="small muted">{r.errorMessage}</div> : null}
                </td>
                <td className="nowrap">{when(r.createdAt)}</td>
                <td>
                  <button className="btn ghost small" onClick={() => setOpen(open === i ? null : i)}>
                    {open === i ? 'Hide' : 'Bodies'}
                  </button>
                </td>
              </tr>
              {open === i ? (
                <tr className="detail-row">
                  <td colSpan={7}>
                    <div className="grid-2 tight">
                      <div>
                        <h3>Request</h3>
                        <Json value={r.requestBody} />
                      </div>
                      <div>
                        <h3>Response</h3>
                        <Json value={r.responseBody} />
                      </div>
                    </div>
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function RoundPage() {
  const { roundId = '' } = useParams();
  const { canWrite } = useAuth();
  const client = useQueryClient();
  const q = useQuery({ queryKey: ['round', roundId], queryFn: () => get<RoundDetail>(`/api/admin/rounds/${encodeURIComponent(roundId)}`) });
  const retry = useMutation({
    mutationFn: () => api<Answer<'retryRound'>>('POST', `/api/admin/rounds/${encodeURIComponent(roundId)}/retry`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['round', roundId] }),
  });
  if (q.error) return <ErrorNote error={q.error} />;
  if (!q.data) return <Loading />;
  const { round, replayUrl } = q.data;
  const b = round.bet;
  const pending = round.roundStatus === 'credit_pending' || round.roundStatus === 'rollback_pending';
  const inPlay = round.roundStatus === 'active';
  return (
    <>
      <PageHeader
        title={
          <>
            Round <span className="mono">{short(round.roundId, 13)}</span>{' '}
            <Badge tone={STATUS_TONE[round.roundStatus] ?? 'gray'}>{statusLabel(round.roundStatus)}</Badge>
          </>
        }
        subtitle={
          <>
            <span className="mono small">{round.roundId}</span> · {b.operatorId} · player {b.playerRef}
          </>
        }
        actions={
          <>
            {pending && canWrite ? (
              <button className="btn primary" onClick={() => retry.mutate()} disabled={retry.isPending} data-testid="round-retry">
                Retry now
              </button>
            ) : null}
            <a className="btn secondary" href={replayUrl} target="_blank" rel="noreferrer" data-testid="replay-link">
              Open as the player saw it ↗
            </a>
          </>
        }
      />
      <ErrorNote error={retry.error} />
      {retry.data ? <div className="alert success">Retry: {retry.data.items[0]?.outcome ?? 'nothing was pending'}</div> : null}
      <div className="grid-3">
        <Card title="Bet">
          <dl className="props">
            <dt>Game</dt>
            <dd className="cap">{b.gameType}</dd>
            <dt>Stake</dt>
            <dd>
              {money(b.totalStaked, b.currency)} {b.currency}
            </dd>
            <dt>Multiplier</dt>
            <dd>{inPlay ? <span className="muted">in play</span> : `${String(b.multiplier)}×`}</dd>
            <dt>Payout</dt>
            <dd className={b.won ? 'win' : ''} data-testid="round-payout">
              {inPlay ? <span className="muted">in play: nothing paid yet</span> : `${money(b.payout, b.currency)} ${b.currency}`}
            </dd>
            <dt>Placed</dt>
            <dd>{when(b.createdAt)}</dd>
            <dt>Settled</dt>
            <dd>{when(b.settledAt)}</dd>
          </dl>
        </Card>
        <Card title="Fairness proof">
          <dl className="props">
            <dt>Server seed hash</dt>
            <dd className="mono small break">{round.fairness.serverSeedHash ?? '—'}</dd>
            <dt>Server seed</dt>
            <dd className="mono small break">{round.fairness.serverSeed ?? <span className="muted">revealed when the player rotates the seed</span>}</dd>
            <dt>Client seed</dt>
            <dd className="mono small break">{round.fairness.clientSeed}</dd>
            <dt>Nonce</dt>
            <dd>{round.fairness.nonce}</dd>
          </dl>
        </Card>
        <Card title="Casino transactions">
          <dl className="props">
            <dt>Debit</dt>
            <dd className="mono small break">{round.casinoTransactions.debit ?? '—'}</dd>
            <dt>Credit</dt>
            <dd className="mono small break">{round.casinoTransactions.credit ?? '—'}</dd>
            <dt>Rollback</dt>
            <dd className="mono small break">{round.casinoTransactions.rollback ?? '—'}</dd>
            {round.error ? (
              <>
                <dt>Error</dt>
                <dd>
                  {round.error.code} {round.error.message}
                </dd>
              </>
            ) : null}
          </dl>
        </Card>
      </div>
      <Card title={`Result · ${paramsText(b.gameType, b.params, round.result)}`}>
        <div className="round-board" data-testid="round-board">
          <AdminRoundBoard gameType={b.gameType} result={round.result} params={b.params} active={inPlay} />
        </div>
        <details className="raw">
          <summary>Raw parameters and result (as stored)</summary>
          <Json value={{ params: b.params, result: round.result }} />
        </details>
      </Card>
      <Card title="Casino callback trail" actions={<span className="muted small">one record per callback key; retries reuse the key</span>}>
        <Trail records={round.casinoCallbackAudit ?? []} />
      </Card>
    </>
  );
}
