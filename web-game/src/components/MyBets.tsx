/**
 * My bets (issue 12): the player's rounds from GET /api/player/bets (only this session's player),
 * newest first, with game, amount, multiplier, payout and time; a row opens its detail — the
 * board as played, the fairness proof and, once the seed is revealed, "verified ✓" computed in
 * the browser — and its replay link.
 */
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import type { PlayerBet } from '../app/contract';
import { readStoredRound, type StoredRound } from '../app/rounds';
import { t } from '../i18n';
import { formatShortTime, formatTime } from '../lib/format';
import { api } from '../lib/api';
import { formatMoney, formatMultiplier } from '../lib/money';
import type { VerifyInputs } from '../verifier/Verifier';
import { RoundBoard } from './RoundBoard';

const RoundProof = lazy(() => import('../verifier/Verifier').then((m) => ({ default: m.RoundProof })));

const money = (r: StoredRound, m: bigint) => formatMoney(m, r.currency, r.decimals);
export const replayUrl = (roundId: string) => `${location.origin}${location.pathname}?replay=${encodeURIComponent(roundId)}`;

/** The round's amounts, settings and fairness proof (My bets detail and the replay). */
export function RoundFacts({ round, showProof = true }: { round: StoredRound; showProof?: boolean }) {
  return (
    <>
      <dl className="gp-facts gp-facts-grid" data-testid="round-facts">
        <dt>{t('bets.round')}</dt>
        <dd>
          <code className="gp-break" data-testid="round-id">
            {round.roundId}
          </code>
        </dd>
        <dt>{t('bets.status')}</dt>
        <dd data-testid="round-status" data-status={round.roundStatus}>
          {t(`status.${round.roundStatus}`)}
        </dd>
        <dt>{t('replay.stake')}</dt>
        <dd>{money(round, round.amount)}</dd>
        {round.totalStaked !== round.amount && (
          <>
            <dt>{t('replay.totalStaked')}</dt>
            <dd>{money(round, round.totalStaked)}</dd>
          </>
        )}
        <dt>{t('bets.multiplier')}</dt>
        <dd>{formatMultiplier(round.multiplier)}×</dd>
        <dt>{t('bets.payout')}</dt>
        <dd data-testid="round-payout">{money(round, round.payout)}</dd>
        <dt>{t('replay.placed')}</dt>
        <dd>{formatTime(round.createdAt)}</dd>
        {Object.keys(round.params).length > 0 && (
          <>
            <dt>{t('bets.params')}</dt>
            <dd>
              <code className="gp-break">{JSON.stringify(round.params)}</code>
            </dd>
          </>
        )}
      </dl>
      {showProof && (
        <section className="gp-proof-box" aria-label={t('bets.proof')}>
          <h3>{t('bets.proof')}</h3>
          <dl className="gp-facts">
            <dt>{t('shield.serverSeedHash')}</dt>
            <dd>
              <code className="gp-break" data-testid="proof-hash">
                {round.fairness.serverSeedHash}
              </code>
            </dd>
            {round.fairness.serverSeed && (
              <>
                <dt>{t('verify.serverSeed')}</dt>
                <dd>
                  <code className="gp-break" data-testid="proof-seed">
                    {round.fairness.serverSeed}
                  </code>
                </dd>
              </>
            )}
            <dt>{t('shield.clientSeed')}</dt>
            <dd>
              <code className="gp-break">{round.fairness.clientSeed}</code>
            </dd>
            <dt>{t('verify.nonce')}</dt>
            <dd>
              <code>{round.fairness.nonce}</code>
            </dd>
          </dl>
          <Suspense fallback={<p className="gp-hint">{t('bets.checking')}</p>}>
            <RoundProof round={round} />
          </Suspense>
        </section>
      )}
    </>
  );
}

function Detail({ round, onBack, openVerifier }: { round: StoredRound; onBack(): void; openVerifier(i: VerifyInputs): void }) {
  return (
    <div className="gp-tab-body" data-testid="bet-detail" data-round={round.roundId}>
      <button type="button" className="gp-link-btn" onClick={onBack} data-testid="bet-back">
        ← {t('bets.back')}
      </button>
      <h3 className="gp-detail-title">{t(`games.${round.gameType}`)}</h3>
      <div className="gp-rb">
        <RoundBoard round={round} />
      </div>
      <RoundFacts round={round} />
      <div className="gp-btn-row">
        {round.fairness.serverSeed && (
          <button
            type="button"
            className="gp-btn"
            onClick={() => void import('../verifier/Verifier').then((m) => openVerifier(m.inputsOfRound(round)))}
            data-testid="bet-open-verifier"
          >
            {t('bets.openVerifier')}
          </button>
        )}
        <a className="gp-btn gp-btn-link" href={replayUrl(round.roundId)} target="_blank" rel="noopener noreferrer" data-testid="bet-replay-link">
          {t('bets.replayLink')}
        </a>
      </div>
    </div>
  );
}

export function MyBets({ sessionId, openVerifier }: { sessionId: string; openVerifier(i: VerifyInputs): void }) {
  const [rounds, setRounds] = useState<StoredRound[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const [open, setOpen] = useState<StoredRound | null>(null);

  const load = useCallback(
    async (before: string | null) => {
      setFailed(false);
      try {
        const q = new URLSearchParams({ sessionId, limit: '20', ...(before ? { before } : {}) });
        const j = await api.get(`/api/player/bets?${q.toString()}`);
        const page = (Array.isArray(j.bets) ? (j.bets as PlayerBet[]) : []).map(readStoredRound).filter((r): r is StoredRound => r !== null);
        setRounds((old) => (before && old ? [...old, ...page] : page));
        setCursor(typeof j.nextCursor === 'string' ? j.nextCursor : null);
      } catch {
        setFailed(true);
      }
    },
    [sessionId],
  );
  useEffect(() => void load(null), [load]);

  if (open) return <Detail round={open} onBack={() => setOpen(null)} openVerifier={openVerifier} />;
  return (
    <div className="gp-tab-body" data-testid="my-bets">
      <div className="gp-bets-head">
        <button type="button" className="gp-link-btn" onClick={() => void load(null)} data-testid="bets-refresh">
          ↻ {t('bets.refresh')}
        </button>
      </div>
      {failed && (
        <p className="gp-hint is-error" role="alert">
          {t('bets.failed')}
        </p>
      )}
      {rounds === null && !failed && <p className="gp-muted">{t('bets.loading')}</p>}
      {rounds?.length === 0 && (
        <p className="gp-muted" data-testid="bets-empty">
          {t('bets.empty')}
        </p>
      )}
      {rounds && rounds.length > 0 && (
        <table className="gp-bets-table">
          <thead>
            <tr>
              <th>{t('bets.game')}</th>
              <th>{t('bets.amount')}</th>
              <th>{t('bets.multiplier')}</th>
              <th>{t('bets.payout')}</th>
              <th>{t('bets.time')}</th>
            </tr>
          </thead>
          <tbody>
            {rounds.map((r) => (
              <tr
                key={r.roundId}
                className={r.won ? 'is-win' : ''}
                onClick={() => setOpen(r)}
                data-testid="bet-row"
                data-round={r.roundId}
                data-game={r.gameType}
              >
                <td>
                  <button
                    type="button"
                    className="gp-link-btn"
                    onClick={(e) => {
                      e.stopPropagation();
                      setOpen(r);
                    }}
                  >
                    {t(`games.${r.gameType}`)}
                  </button>
                </td>
                <td>{money(r, r.amount)}</td>
                <td>{r.roundStatus === 'active' ? '—' : `${formatMultiplier(r.multiplier)}×`}</td>
                <td>{r.roundStatus === 'active' ? t('status.active') : money(r, r.payout)}</td>
                <td className="gp-muted" title={formatTime(r.createdAt)}>
                  {formatShortTime(r.createdAt)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" className="gp-btn" onClick={() => void load(cursor)} data-testid="bets-more">
          {t('bets.more')}
        </button>
      )}
    </div>
  );
}
