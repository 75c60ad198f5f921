/** The mini-lobby (SPEC.md launch mode `lobby`): the operator's enabled games, one session. */
import type { GameType } from '../app/launch';
import { t } from '../i18n';
import { GameIcon } from './icons';

export function GameSwitcher({ games, current, onSelect, disabled }: { games: GameType[]; current: GameType; onSelect(g: GameType): void; disabled: boolean }) {
  return (
    <nav className="gp-switcher" aria-label={t('app.games')} data-testid="game-switcher">
      {games.map((g) => (
        <button
          key={g}
          type="button"
          className={`gp-switch-tab${g === current ? ' is-current' : ''}`}
          aria-current={g === current ? 'page' : undefined}
          onClick={() => onSelect(g)}
          disabled={disabled}
          data-game={g}
        >
          <GameIcon game={g} />
          <span>{t(`games.${g}`)}</span>
        </button>
      ))}
    </nav>
  );
}
