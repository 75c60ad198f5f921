/** Sound and hotkeys, remembered per player on this device (app/preferences.ts). */
import type { Preferences } from '../app/preferences';
import { t } from '../i18n';

function Toggle({ label, on, onChange, testId, help }: { label: string; on: boolean; onChange(v: boolean): void; testId: string; help?: string }) {
  return (
    <label className="gp-toggle">
      <span>
        {label}
        {help && <small className="gp-hint">{help}</small>}
      </span>
      <input type="checkbox" role="switch" checked={on} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
    </label>
  );
}

export function SettingsPanel({ prefs, onChange, onClose }: { prefs: Preferences; onChange(p: Preferences): void; onClose(): void }) {
  return (
    <div className="gp-popover" role="dialog" aria-label={t('settings.title')} data-testid="settings-panel">
      <div className="gp-side-head">
        <h2>{t('settings.title')}</h2>
        <button type="button" className="gp-icon-btn" onClick={onClose} aria-label={t('shield.close')}>
          ×
        </button>
      </div>
      <Toggle label={t('settings.sound')} on={prefs.sound} onChange={(sound) => onChange({ ...prefs, sound })} testId="setting-sound" />
      <Toggle
        label={t('settings.hotkeys')}
        help={t('settings.hotkeysHelp')}
        on={prefs.hotkeys}
        onChange={(hotkeys) => onChange({ ...prefs, hotkeys })}
        testId="setting-hotkeys"
      />
    </div>
  );
}
