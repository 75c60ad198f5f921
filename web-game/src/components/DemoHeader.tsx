/** The header of a standalone (not embedded) launch: demo title, the operator console link and the seed-hash line. */
import { t } from '../i18n';
import { ShieldIcon } from './icons';

export function DemoHeader({ serverSeedHash }: { serverSeedHash: string | null }) {
  return (
    <header className="gp-demo-header" data-testid="demo-header">
      <div className="gp-demo-brand">
        <span className="gp-logo" aria-hidden="true">
          <ShieldIcon />
        </span>
        <div>
          <strong>{t('app.demoTitle')}</strong>
          <span className="gp-demo-note">{t('app.demoNote')}</span>
        </div>
      </div>
      <a className="gp-console-link" href="/admin/" data-testid="operator-link">
        {t('app.operatorConsole')}
      </a>
      {serverSeedHash && (
        <p className="gp-seed-line" data-testid="seed-hash-line">
          <span>{t('app.serverSeedHash')}</span> <code>{serverSeedHash}</code>
        </p>
      )}
    </header>
  );
}
