/** A playing card from its code (`AS`, `10H`, `KD`, `2C`; CONTRACT.md §12), or its back. */
import { t } from '../i18n';

const SUITS: Record<string, { symbol: string; name: string; red: boolean }> = {
  S: { symbol: '♠', name: 'spades', red: false },
  H: { symbol: '♥', name: 'hearts', red: true },
  D: { symbol: '♦', name: 'diamonds', red: true },
  C: { symbol: '♣', name: 'clubs', red: false },
};
const RANK_NAMES: Record<string, string> = { A: 'ace', K: 'king', Q: 'queen', J: 'jack' };

export function PlayingCard({ code, delayMs = 0, flip = false, testId }: { code: string | null; delayMs?: number; flip?: boolean; testId?: string }) {
  const style = { animationDelay: `${delayMs}ms` };
  if (code === null) {
    return <div className="gp-card is-back" style={style} role="img" aria-label={t('blackjack.hidden')} data-testid={testId} data-card="back" />;
  }
  const rank = code.slice(0, -1);
  const suit = SUITS[code.slice(-1)] ?? { symbol: '?', name: '', red: false };
  return (
    <div className={`gp-card${suit.red ? ' is-red' : ''}${flip ? ' is-flip' : ''}`} style={style} role="img" aria-label={`${RANK_NAMES[rank] ?? rank} of ${suit.name}`} data-testid={testId} data-card={code}>
      <span className="gp-card-corner">
        <span>{rank}</span>
        <span>{suit.symbol}</span>
      </span>
      <span className="gp-card-pip" aria-hidden="true">{suit.symbol}</span>
    </div>
  );
}
