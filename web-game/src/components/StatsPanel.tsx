/** Live stats of this session with a small profit chart (a tiny inline SVG: no chart library to load). */
import type { Stats } from '../app/stats';
import { t } from '../i18n';
import type { Minor } from '../lib/money';

function ProfitChart({ series }: { series: Minor[] }) {
  const W = 280;
  const H = 90;
  const points = [0n, ...series];
  let min = 0n;
  let max = 0n;
  for (const p of points) {
    if (p < min) min = p;
    if (p > max) max = p;
  }
  const span = max - min === 0n ? 1n : max - min;
  // exact integer scaling to the chart's pixels (no float arithmetic on the amounts themselves)
  const y = (v: Minor) => Number(((max - v) * BigInt(H - 8)) / span) + 4;
  const x = (i: number) => (points.length === 1 ? 0 : (i * W) / (points.length - 1));
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p)}`).join(' ');
  const zero = y(0n);
  const last = points[points.length - 1] ?? 0n;
  return (
    <svg
      className={`gp-chart ${last >= 0n ? 'is-up' : 'is-down'}`}
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={t('stats.chart')}
      data-testid="stats-chart"
      data-points={points.length}
    >
      <line x1={0} x2={W} y1={zero} y2={zero} className="gp-chart-zero" />
      <polygon points={`0,${zero} ${line} ${W},${zero}`} className="gp-chart-area" />
      <polyline points={line} className="gp-chart-line" />
    </svg>
  );
}

export function StatsPanel({ stats, money, onReset, onClose }: { stats: Stats; money(m: Minor): string; onReset(): void; onClose(): void }) {
  return (
    <div className="gp-popover" role="dialog" aria-label={t('stats.title')} data-testid="stats-panel">
      <div className="gp-side-head">
        <h2>{t('stats.title')}</h2>
        <button type="button" className="gp-icon-btn" onClick={onClose} aria-label={t('shield.close')}>
          ×
        </button>
      </div>
      <dl className="gp-stats-grid">
        <div>
          <dt>{t('stats.profit')}</dt>
          <dd className={stats.profit >= 0n ? 'is-win' : 'is-loss'} data-testid="stats-profit" data-minor={String(stats.profit)}>
            {money(stats.profit)}
          </dd>
        </div>
        <div>
          <dt>{t('stats.wagered')}</dt>
          <dd data-testid="stats-wagered" data-minor={String(stats.wagered)}>
            {money(stats.wagered)}
          </dd>
        </div>
        <div>
          <dt>{t('stats.wins')}</dt>
          <dd className="is-win" data-testid="stats-wins">
            {stats.wins}
          </dd>
        </div>
        <div>
          <dt>{t('stats.losses')}</dt>
          <dd className="is-loss" data-testid="stats-losses">
            {stats.losses}
          </dd>
        </div>
      </dl>
      {stats.bets === 0 ? <p className="gp-hint">{t('stats.empty')}</p> : <ProfitChart series={stats.series} />}
      <button type="button" className="gp-btn gp-btn-secondary" onClick={onReset} disabled={stats.bets === 0} data-testid="stats-reset">
        {t('stats.reset')}
      </button>
    </div>
  );
}
