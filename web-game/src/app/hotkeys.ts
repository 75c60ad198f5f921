/**
 * Hotkeys (issue 12; docs/game-page.md): Space places a bet — it presses the game's bet button
 * when that button is enabled. It does nothing while a field, a button or a link has the focus
 * (Space keeps its own meaning there), inside the shield and the pop-overs, with a modifier key,
 * or when the player turned hotkeys off in the settings.
 */
import { useEffect, type RefObject } from 'react';

const OWN_SPACE = 'input, textarea, select, button, a, [contenteditable], [role=switch], [role=tab], .gp-side-panel, .gp-popover';

export function useHotkeys(enabled: boolean, root: RefObject<HTMLElement | null>, paced: () => boolean = () => true): void {
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.code !== 'Space' && e.key !== ' ') return;
      if (e.repeat || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      const target = e.target instanceof Element ? e.target : null;
      if (target?.closest(OWN_SPACE)) return;
      const button = root.current?.querySelector<HTMLButtonElement>('[data-testid=bet-button]');
      if (!button) return;
      e.preventDefault();
      // The pacing rule (issue 27): a key press sooner than minRoundIntervalMs after the last round start does nothing.
      if (!button.disabled && paced()) button.click();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled, root, paced]);
}
