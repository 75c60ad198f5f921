/**
 * The shield control (SPEC.md: "Provably fair details stay inside the shield control"): a button in
 * the top bar and a side panel with the seed commitment, client seed and nonce. Issue 12 adds the
 * in-browser verifier, rotation and the player's bets to this panel.
 */
import { useEffect, useRef } from 'react';
import { t } from '../i18n';
import { ShieldIcon } from './icons';

export function ShieldButton({ open, onToggle }: { open: boolean; onToggle(): void }) {
  return (
    <button type="button" className={`gp-shield-btn${open ? ' is-open' : ''}`} onClick={onToggle} aria-expanded={open} aria-controls="gp-side-panel" aria-label={t('shield.open')} title={t('shield.open')} data-testid="shield">
      <ShieldIcon />
    </button>
  );
}

export interface FairnessView {
  serverSeedHash: string;
  clientSeed: string;
  nonce: number;
  lastRoundId: string | null;
}

export function ShieldPanel({ fairness, onClose }: { fairness: FairnessView; onClose(): void }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <aside className="gp-side-panel" id="gp-side-panel" aria-label={t('shield.title')} data-testid="side-panel">
      <div className="gp-side-head">
        <h2><ShieldIcon /> {t('shield.title')}</h2>
        <button type="button" ref={closeRef} className="gp-icon-btn" onClick={onClose} aria-label={t('shield.close')}>×</button>
      </div>
      <p className="gp-muted">{t('shield.intro')}</p>
      <dl className="gp-facts">
        <dt>{t('shield.serverSeedHash')}</dt>
        <dd><code data-testid="shield-hash">{fairness.serverSeedHash}</code></dd>
        <dt>{t('shield.clientSeed')}</dt>
        <dd><code>{fairness.clientSeed}</code></dd>
        <dt>{t('shield.nonce')}</dt>
        <dd><code>{fairness.nonce}</code></dd>
        {fairness.lastRoundId && (
          <>
            <dt>{t('shield.lastRound')}</dt>
            <dd><code>{fairness.lastRoundId}</code></dd>
          </>
        )}
      </dl>
    </aside>
  );
}
