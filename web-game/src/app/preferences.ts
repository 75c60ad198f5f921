/**
 * The player's preferences on this device (issue 12): sound and hotkeys, remembered per player
 * (operator + playerRef) in localStorage. A browser without storage (privacy mode, a sandboxed
 * frame) keeps them for the page's life only.
 */
export interface Preferences {
  sound: boolean;
  hotkeys: boolean;
}

export const DEFAULT_PREFERENCES: Preferences = { sound: true, hotkeys: true };

const keyOf = (operatorId: string, playerRef: string) => `gp:prefs:${operatorId}:${playerRef}`;

export function loadPreferences(operatorId: string, playerRef: string): Preferences {
  try {
    const raw = window.localStorage.getItem(keyOf(operatorId, playerRef));
    const stored = raw ? (JSON.parse(raw) as Partial<Preferences>) : {};
    return {
      sound: typeof stored.sound === 'boolean' ? stored.sound : DEFAULT_PREFERENCES.sound,
      hotkeys: typeof stored.hotkeys === 'boolean' ? stored.hotkeys : DEFAULT_PREFERENCES.hotkeys,
    };
  } catch {
    return { ...DEFAULT_PREFERENCES };
  }
}

export function savePreferences(operatorId: string, playerRef: string, p: Preferences): void {
  try {
    window.localStorage.setItem(keyOf(operatorId, playerRef), JSON.stringify(p));
  } catch {
    // storage refused: kept in memory only
  }
}
