/** A launch that cannot start: a plain sentence, never a code. */
import { t } from '../i18n';

export type ScreenKind = 'missingParams' | 'invalidSession' | 'unknownOperator' | 'unknownGame' | 'gameDisabled' | 'currencyRefused' | 'casinoDown' | 'generic';

export function ErrorScreen({ kind, onRetry }: { kind: ScreenKind; onRetry?: (() => void) | undefined }) {
  return (
    <div className="gp-screen" role="alert" data-testid="error-screen" data-kind={kind}>
      <div className="gp-screen-icon" aria-hidden="true">!</div>
      <h1>{t(`screens.${kind}.title`)}</h1>
      <p>{t(`screens.${kind}.body`)}</p>
      {onRetry && (
        <button type="button" className="gp-btn gp-btn-secondary" onClick={onRetry}>
          {t('app.retry')}
        </button>
      )}
    </div>
  );
}
