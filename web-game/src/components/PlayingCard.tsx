/** A playing card from its code (`AS`, `10H`, `KD`, `2C`; CONTRACT.md §12), or its back. */
import { t } from '../i18n';

const SUITS: Record<string, { symbol: string; red: boolean }> = {
  S: { symbol: '♠', red: false },
  H: { symbol: '♥', red: true },
  D: { symbol: '♦', red: true },
  C: { symbol: '♣', red: false },
};
const NAMED_RANKS = ['A', 'K', 'Q', 'J'];

export function PlayingCard({ code, delayMs = 0, flip = false, testId }: { code: string | null; delayMs?: number; flip?: boolean; testId?: string }) {
  const style = { animationDelay: `${delayMs}ms` };
  if (code === null) {
    return <div className="gp-card is-back" style={style} role="img" aria-label={t('blackjack.hidden')} data-testid={testId} data-card="back" />;
  }
  const rank = code.slice(0, -1);
  const suitCode = code.slice(-1);
  const suit = SUITS[suitCode] ?? { symbol: '?', red: false };
  const label = t('cards.label', { rank: NAMED_RANKS.includes(rank) ? t(`cards.${rank}`) : rank, suit: suit.symbol === '?' ? '' : t(`cards.${suitCode}`) });
  return (
    <div
      className={`gp-card${suit.red ? ' is-red' : ''}${flip ? ' is-flip' : ''}`}
      style={style}
      role="img"
      aria-label={label}
      data-testid={testId}
      data-card={code}
    >
      <span className="gp-card-corner">
        <span>{rank}</span>
        <span>{suit.symbol}</span>
      </span>
      <span className="gp-card-pip" aria-hidden="true">
        {suit.symbol}
      </span>
    </div>
  );
}
