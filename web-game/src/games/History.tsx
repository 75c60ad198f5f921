import { t } from '../i18n';

/** The last results of this game in this session, newest first (space reserved: no layout shift). */
export interface HistoryItem {
  id: string;
  label: string;
  won: boolean;
}

export function History({ items }: { items: HistoryItem[] }) {
  return (
    <ol className="gp-history" aria-label={t('app.recentResults')} data-testid="history">
      {items.slice(0, 8).map((h) => (
        <li key={h.id} className={h.won ? 'is-win' : 'is-loss'}>
          {h.label}
        </li>
      ))}
    </ol>
  );
}
