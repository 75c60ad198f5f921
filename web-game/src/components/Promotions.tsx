/**
 * Promotions on the game page (issue 30, docs/promotions.md): the running tournaments'
 * leaderboards (top 10 by masked display name, the player's own rank and score, the time left,
 * the prizes), the running prize drops (prizes left, the chance, the committed seed hash), and a
 * notice when the player won a prize, with the drop's check in the in-browser verifier.
 * It reads GET /api/sessions/{sessionId}/promotions, which the server answers from a leaderboard
 * cached a couple of seconds, after the answer's `nextPollSeconds` (4 s while a promotion runs,
 * 60 s when none; never per bet; nothing while the page is hidden: promo-poll.ts). Renders nothing
 * when no promotion runs and nothing was won.
 */
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import type { Answer } from '../app/contract';
import { useGameEnv } from '../app/env';
import { api } from '../lib/api';
import { fromApi, formatMultiplier } from '../lib/money';
import { t } from '../i18n';
import { GiftIcon, TrophyIcon } from './icons';
import { startPolling } from './promo-poll';

const DropCheck = lazy(() => import('../verifier/DropCheck').then((m) => ({ default: m.DropCheck })));

/** The answer of GET /api/sessions/{sessionId}/promotions, generated from /openapi.json (app/contract.ts). */
type Panel = Answer<'getSessionPromotions'>;
type Tournament = Panel['tournaments'][number];

/** "1h 05m", "4m 09s", "12s" — the time until `endsAt`. */
export function timeLeft(endsAt: string, now: number): string {
  const s = Math.max(0, Math.floor((Date.parse(endsAt) - now) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h >= 48) return t('promo.days', { n: Math.floor(h / 24) });
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

export function Promotions() {
  const env = useGameEnv();
  const sessionId = env.session.sessionId;
  const decimals = env.config.decimals;
  const [panel, setPanel] = useState<Panel | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [checking, setChecking] = useState<string | null>(null);
  const [dismissed, setDismissed] = useState<Set<string>>(() => new Set());
  const [now, setNow] = useState(() => Date.now());

  const load = useCallback(async (): Promise<number | undefined> => {
    try {
      const answer = (await api.get(`/api/sessions/${encodeURIComponent(sessionId)}/promotions`)) as unknown as Panel;
      setPanel(answer);
      return answer.nextPollSeconds;
    } catch {
      // the panel is an extra: a failed read leaves what was shown
      return undefined;
    }
  }, [sessionId]);

  useEffect(() => {
    const stop = startPolling(load, {
      document,
      setTimeout: (fn, ms) => window.setTimeout(fn, ms),
      clearTimeout: (h) => window.clearTimeout(h as number),
      random: Math.random,
    });
    const clock = setInterval(() => setNow(Date.now()), 1000);
    return () => {
      stop();
      clearInterval(clock);
    };
  }, [load]);

  if (!panel) return null;
  const money = (v: unknown) => env.money(fromApi(v, decimals));
  const score = (tn: Tournament, v: unknown) => (tn.scoring === 'multiplier' ? `${formatMultiplier(Number(v))}×` : money(v));
  const wins = panel.wins.filter((w) => !dismissed.has(`${w.promoId}:${w.prize}`));
  if (panel.tournaments.length === 0 && panel.drops.length === 0 && wins.length === 0) return null;

  return (
    <section className="gp-promos" data-testid="promotions" aria-label={t('promo.region')}>
      {wins.slice(0, 1).map((w) => (
        <div key={`${w.promoId}:${w.prize}`} className="gp-promo-win" role="status" data-testid="promo-win" data-promo={w.promoId}>
          <span className="gp-promo-win-text">
            <span className="gp-promo-icon">
              <GiftIcon />
            </span>{' '}
            {t(w.roundId ? 'promo.wonDrop' : 'promo.wonTournament', { amount: money(w.amount) })}
          </span>
          <span className="gp-promo-actions">
            {w.roundId && (
              <button type="button" className="gp-link-btn" onClick={() => setChecking(checking === w.promoId ? null : w.promoId)} data-testid="promo-verify">
                {t('promo.verifyDrop')}
              </button>
            )}
            <button
              type="button"
              className="gp-link-btn"
              onClick={() => setDismissed((d) => new Set(d).add(`${w.promoId}:${w.prize}`))}
              aria-label={t('promo.dismiss')}
              data-testid="promo-win-dismiss"
            >
              ×
            </button>
          </span>
        </div>
      ))}
      {panel.tournaments.map((tn) => {
        const expanded = open === tn.promoId;
        return (
          <div key={tn.promoId} className="gp-promo" data-testid="tournament" data-promo={tn.promoId}>
            <button
              type="button"
              className="gp-promo-head"
              onClick={() => setOpen(expanded ? null : tn.promoId)}
              aria-expanded={expanded}
              data-testid="tournament-toggle"
            >
              <span className="gp-promo-icon is-gold">
                <TrophyIcon />
              </span>
              <span className="gp-promo-name">{tn.name ?? t('promo.tournament')}</span>
              <span className="gp-promo-me" data-testid="tournament-you">
                {tn.you ? t('promo.yourRank', { rank: tn.you.rank, players: tn.players }) : t('promo.notRanked')}
              </span>
              <span className="gp-promo-time" data-testid="tournament-time">
                {t('promo.timeLeft', { time: timeLeft(tn.endsAt, now) })}
              </span>
              <span className="gp-promo-caret" aria-hidden="true">
                {expanded ? '▴' : '▾'}
              </span>
            </button>
            {expanded && (
              <div className="gp-promo-body" data-testid="leaderboard">
                <p className="gp-promo-meta">
                  {tn.scoring !== null && `${t(`promo.scoring.${tn.scoring}`)} · `}
                  {t('promo.prizes')}: {tn.prizes.slice(0, 3).map(money).join(' / ')}
                  {tn.prizes.length > 3 ? ' …' : ''}
                </p>
                <table className="gp-promo-table">
                  <thead>
                    <tr>
                      <th scope="col">#</th>
                      <th scope="col">{t('promo.player')}</th>
                      <th scope="col" className="is-num">
                        {t('promo.score')}
                      </th>
                      <th scope="col" className="is-num">
                        {t('promo.prize')}
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {tn.top.map((e) => (
                      <tr key={e.rank} className={e.you ? 'is-you' : undefined} data-testid="leaderboard-row" data-rank={e.rank}>
                        <td>{e.rank}</td>
                        <td>{e.you ? `${e.name} (${t('promo.you')})` : e.name}</td>
                        <td className="is-num">{score(tn, e.score)}</td>
                        <td className="is-num">{e.prize === null ? '—' : money(e.prize)}</td>
                      </tr>
                    ))}
                    {tn.you && !tn.top.some((e) => e.you) && (
                      <tr className="is-you" data-testid="leaderboard-you" data-rank={tn.you.rank}>
                        <td>{tn.you.rank}</td>
                        <td>{`${tn.you.name} (${t('promo.you')})`}</td>
                        <td className="is-num">{score(tn, tn.you.score)}</td>
                        <td className="is-num">{tn.you.prize === null ? '—' : money(tn.you.prize)}</td>
                      </tr>
                    )}
                  </tbody>
                </table>
                {tn.top.length === 0 && <p className="gp-promo-meta">{t('promo.empty')}</p>}
              </div>
            )}
          </div>
        );
      })}
      {panel.drops.map((d) => (
        <div key={d.promoId} className="gp-promo" data-testid="drop" data-promo={d.promoId}>
          <div className="gp-promo-head is-static">
            <span className="gp-promo-icon is-violet">
              <GiftIcon />
            </span>
            <span className="gp-promo-name">{d.name ?? t('promo.drop')}</span>
            <span className="gp-promo-me" data-testid="drop-left">
              {t('promo.dropLeft', { left: d.prizesLeft, total: d.prizes.length })}
            </span>
            <span className="gp-promo-time">{t('promo.timeLeft', { time: timeLeft(d.endsAt, now) })}</span>
          </div>
          <p className="gp-promo-meta">
            {d.oneIn !== null && t('promo.dropChance', { oneIn: d.oneIn })}
            {d.serverSeedHash !== null && (
              <>
                {' · '}
                {t('promo.hash')}{' '}
                <code className="gp-nowrap" title={d.serverSeedHash}>
                  {d.serverSeedHash.slice(0, 12)}…
                </code>
              </>
            )}
          </p>
        </div>
      ))}
      {checking && (
        <Suspense fallback={null}>
          <DropCheck promoId={checking} />
        </Suspense>
      )}
    </section>
  );
}
