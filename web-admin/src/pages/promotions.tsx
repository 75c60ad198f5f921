/**
 * Promotions (issue 30, docs/promotions.md): the tenant's tournaments and prize drops, a new one,
 * one promotion's leaderboard and awards (with the state of each prize's promo credit), and
 * cancelling (prizes not yet awarded are never paid). Viewers read; admins change.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, exact, get, qs, type Answer } from '../api.js';
import { useAuth } from '../auth.js';
import { Badge, Card, DataTable, ErrorNote, Kpi, Loading, Modal, PageHeader } from '../components.js';
import { money, short, when } from '../format.js';
import { OperatorSelect } from './shared.js';

type Promotion = Answer<'listAdminPromotions'>['promotions'][number];
type Detail = Answer<'getAdminPromotionsItem'>;
type Award = Detail['awards'][number];
type Entry = Answer<'getAdminPromotionsLeaderboard'>['entries'][number];

const STATUS_TONE = { scheduled: 'blue', active: 'green', ended: 'gray', cancelled: 'red' } as const;
const KIND = { tournament: 'Tournament', prize_drop: 'Prize drop' } as const;
const SCORING = { multiplier: 'Best multiplier', wagered: 'Most wagered', profit: 'Biggest profit', biggestWin: 'Biggest win' } as const;

const columns: ColumnDef<Promotion, unknown>[] = [
  {
    header: 'Promotion',
    id: 'name',
    cell: (c) => <Link to={`/promotions/${c.row.original.promoId}`}>{c.row.original.name ?? short(c.row.original.promoId)}</Link>,
  },
  { header: 'Kind', id: 'kind', cell: (c) => <Badge tone={c.row.original.kind === 'tournament' ? 'blue' : 'amber'}>{KIND[c.row.original.kind]}</Badge> },
  { header: 'Profile', accessorKey: 'operatorId' },
  { header: 'Status', id: 'status', cell: (c) => <Badge tone={STATUS_TONE[c.row.original.status]}>{c.row.original.status}</Badge> },
  {
    header: 'Prize pool',
    id: 'pool',
    cell: (c) => (
      <span className="nowrap">
        {money(c.row.original.prizePool, c.row.original.currency)} {c.row.original.currency}
      </span>
    ),
  },
  { header: 'Ends', id: 'ends', cell: (c) => <span className="nowrap">{when(c.row.original.endsAt)}</span> },
];

export function PromotionsPage() {
  const { canWrite } = useAuth();
  const [operatorId, setOperatorId] = useState('');
  const [creating, setCreating] = useState(false);
  const q = useQuery({
    queryKey: ['promotions', operatorId],
    queryFn: () => get<Answer<'listAdminPromotions'>>(`/api/admin/promotions${qs({ operatorId, limit: 200 })}`),
  });
  return (
    <>
      <PageHeader
        title="Promotions"
        subtitle="Tournaments with live leaderboards and provably fair prize drops. Prizes are paid as promo credits (no debit), apart from paid rounds and free bets."
        actions={
          <>
            <OperatorSelect value={operatorId} onChange={setOperatorId} />
            {canWrite ? (
              <button className="btn primary" onClick={() => setCreating(true)} data-testid="promo-new">
                New promotion
              </button>
            ) : null}
          </>
        }
      />
      <ErrorNote error={q.error} />
      <Card>{q.isLoading ? <Loading /> : <DataTable data={q.data?.promotions ?? []} columns={columns} empty="No promotions yet" testId="promo-table" />}</Card>
      {creating ? <NewPromotion onClose={() => setCreating(false)} /> : null}
    </>
  );
}

function NewPromotion({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [f, setF] = useState({
    kind: 'tournament',
    operatorId: '',
    name: '',
    scoring: 'wagered',
    oneIn: '500',
    prizes: '100, 50, 25',
    minBet: '',
    hours: '24',
  });
  const set = (patch: Partial<typeof f>) => setF((old) => ({ ...old, ...patch }));
  const create = useMutation({
    mutationFn: () =>
      api<Answer<'createAdminPromotions'>>('POST', '/api/admin/promotions', {
        kind: f.kind,
        operatorId: f.operatorId || undefined,
        name: f.name || undefined,
        prizes: f.prizes.split(',').map((x) => exact(x)),
        ...(f.minBet.trim() ? { minBet: exact(f.minBet) } : {}),
        ...(f.kind === 'tournament' ? { scoring: f.scoring } : { oneIn: Number(f.oneIn) }),
        endsAt: new Date(Date.now() + Number(f.hours) * 3_600_000).toISOString(),
      }),
    onSuccess: (p) => {
      void client.invalidateQueries({ queryKey: ['promotions'] });
      void navigate(`/promotions/${p.promoId}`);
    },
  });
  return (
    <Modal title="New promotion" onClose={onClose} testId="promo-form">
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <label className="field">
          <span>Kind</span>
          <select value={f.kind} onChange={(e) => set({ kind: e.target.value })} data-testid="promo-kind">
            <option value="tournament">Tournament</option>
            <option value="prize_drop">Prize drop</option>
          </select>
        </label>
        <OperatorSelect value={f.operatorId} onChange={(v) => set({ operatorId: v })} label="Profile" />
        <label className="field">
          <span>Name (players see it)</span>
          <input value={f.name} onChange={(e) => set({ name: e.target.value })} data-testid="promo-name" />
        </label>
        {f.kind === 'tournament' ? (
          <label className="field">
            <span>Scoring</span>
            <select value={f.scoring} onChange={(e) => set({ scoring: e.target.value })}>
              {Object.entries(SCORING).map(([k, v]) => (
                <option key={k} value={k}>
                  {v}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <label className="field">
            <span>Each qualifying bet wins with a chance of 1 in</span>
            <input inputMode="numeric" value={f.oneIn} onChange={(e) => set({ oneIn: e.target.value })} />
          </label>
        )}
        <label className="field">
          <span>{f.kind === 'tournament' ? 'Prizes by rank' : 'Prizes in drop order'} (comma-separated, in the profile’s currency)</span>
          <input value={f.prizes} onChange={(e) => set({ prizes: e.target.value })} data-testid="promo-prizes" />
        </label>
        <label className="field">
          <span>Qualifying minimum bet (optional)</span>
          <input inputMode="decimal" value={f.minBet} onChange={(e) => set({ minBet: e.target.value })} />
        </label>
        <label className="field">
          <span>Runs for (hours, from now)</span>
          <input inputMode="numeric" value={f.hours} onChange={(e) => set({ hours: e.target.value })} />
        </label>
        <ErrorNote error={create.error} />
        <div className="form-actions">
          <button type="button" className="btn secondary" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="btn primary" disabled={create.isPending} data-testid="promo-create">
            Create
          </button>
        </div>
      </form>
    </Modal>
  );
}

export function PromotionPage() {
  const { promoId = '' } = useParams();
  const { canWrite } = useAuth();
  const client = useQueryClient();
  const q = useQuery({ queryKey: ['promotion', promoId], queryFn: () => get<Detail>(`/api/admin/promotions/${encodeURIComponent(promoId)}`) });
  const isTournament = q.data?.kind === 'tournament';
  const board = useQuery({
    queryKey: ['promotion-board', promoId],
    enabled: isTournament,
    queryFn: () => get<Answer<'getAdminPromotionsLeaderboard'>>(`/api/admin/promotions/${encodeURIComponent(promoId)}/leaderboard?limit=50`),
  });
  const cancel = useMutation({
    mutationFn: () => api('POST', `/api/admin/promotions/${encodeURIComponent(promoId)}/cancel`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['promotion', promoId] }),
  });
  if (q.isLoading) return <Loading />;
  if (!q.data) return <ErrorNote error={q.error} />;
  const p = q.data;
  const m = (v: Award['amount']) => `${money(v, p.currency)} ${p.currency}`;
  const awardColumns: ColumnDef<Award, unknown>[] = [
    { header: isTournament ? 'Rank' : 'Prize', id: 'prize', cell: (c) => (isTournament ? `#${c.row.original.prize}` : `${c.row.original.prize + 1}`) },
    { header: 'Player', accessorKey: 'playerRef' },
    { header: 'Amount', id: 'amount', cell: (c) => <span className="nowrap">{m(c.row.original.amount)}</span> },
    ...(isTournament
      ? [
          {
            header: 'Score',
            id: 'score',
            cell: (c) => (p.scoring === 'multiplier' ? `${c.row.original.score ?? ''}×` : money(c.row.original.score ?? null, p.currency)),
          } as ColumnDef<Award, unknown>,
        ]
      : [
          {
            header: 'Winning bet',
            id: 'round',
            cell: (c) =>
              c.row.original.roundId ? (
                <Link className="mono" to={`/rounds/${c.row.original.roundId}`}>
                  {short(c.row.original.roundId)}
                </Link>
              ) : (
                '—'
              ),
          } as ColumnDef<Award, unknown>,
        ]),
    {
      header: 'Credit',
      id: 'status',
      cell: (c) => (
        <Badge tone={c.row.original.status === 'credited' ? 'green' : 'amber'}>{c.row.original.status === 'credited' ? 'credited' : 'credit pending'}</Badge>
      ),
    },
    { header: 'Attempts', accessorKey: 'attemptCount' },
    {
      header: 'Casino transaction',
      id: 'tx',
      cell: (c) => <span className="mono small">{c.row.original.casinoTransactionId ? short(c.row.original.casinoTransactionId, 12) : '—'}</span>,
    },
  ];
  const boardColumns: ColumnDef<Entry, unknown>[] = [
    { header: '#', accessorKey: 'rank' },
    {
      header: 'Player',
      id: 'player',
      cell: (c) => (
        <span>
          {c.row.original.playerRef} <span className="muted small">({c.row.original.name})</span>
        </span>
      ),
    },
    {
      header: 'Score',
      id: 'score',
      cell: (c) => (
        <span className="nowrap">
          {p.scoring === 'multiplier' ? `${String(c.row.original.score)}×` : money(c.row.original.score as Award['amount'], p.currency)}
        </span>
      ),
    },
    { header: 'Rounds', accessorKey: 'rounds' },
    { header: 'Prize', id: 'prize', cell: (c) => (c.row.original.prize === null ? '—' : m(c.row.original.prize)) },
  ];
  const open = p.status === 'scheduled' || p.status === 'active';
  return (
    <>
      <PageHeader
        title={
          <>
            {p.name ?? short(p.promoId)} <Badge tone={STATUS_TONE[p.status]}>{p.status}</Badge>
          </>
        }
        subtitle={`${KIND[p.kind]} of ${p.operatorId} · ${when(p.startsAt)} → ${when(p.endsAt)}`}
        actions={
          canWrite && open ? (
            <button
              className="btn danger"
              data-testid="promo-cancel"
              disabled={cancel.isPending}
              onClick={() => {
                if (window.confirm('Cancel this promotion? Prizes not yet awarded will never be paid.')) cancel.mutate();
              }}
            >
              Cancel promotion
            </button>
          ) : null
        }
      />
      <ErrorNote error={cancel.error} />
      <div className="kpis">
        <Kpi label="Prize pool" value={m(p.prizePool)} hint={`${p.prizes.length} prizes`} />
        <Kpi label={isTournament ? 'Scoring' : 'Chance per bet'} value={isTournament ? SCORING[p.scoring ?? 'wagered'] : `1 in ${p.oneIn ?? '—'}`} />
        <Kpi label="Players" value={p.allPlayers ? 'Everyone' : String(p.players)} hint={Number(p.minBet) > 0 ? `bets from ${m(p.minBet)}` : 'any stake'} />
        <Kpi
          label="Awarded"
          value={`${p.awards.length} / ${p.prizes.length}`}
          hint={`${p.awards.filter((a) => a.status === 'credited').length} credited`}
          testId="promo-awarded"
        />
      </div>
      {!isTournament ? (
        <Card title="Fairness">
          <p className="small">
            Rule <code>{p.rule}</code> · committed seed hash <code className="mono">{p.serverSeedHash}</code> · {p.entries ?? 0} bets drawn ·{' '}
            {p.serverSeedRevealed ? (
              <a href={`/api/promotions/${p.promoId}/proof`}>public proof with the revealed seed</a>
            ) : (
              'the seed is revealed when the drop is over'
            )}
          </p>
        </Card>
      ) : (
        <Card title="Leaderboard">
          <ErrorNote error={board.error} />
          <DataTable data={board.data?.entries ?? []} columns={boardColumns} empty="No qualifying rounds yet" testId="promo-leaderboard" />
        </Card>
      )}
      <Card title="Awards and their promo credits">
        <DataTable data={p.awards} columns={awardColumns} empty={open ? 'Nothing awarded yet' : 'No prize was awarded'} testId="promo-awards" />
      </Card>
    </>
  );
}
