/** A launch that cannot start: a plain sentence, never a code. */
import { t } from '../i18n';

export type ScreenKind = 'missingParams' | 'invalidSession' | 'unknownOperator' | 'unknownGame' | 'gameDisabled' | 'currencyRefused' | 'casinoDown' | 'generic';

/** `casinoMessage`: the casino's own words (issue 27), shown verbatim as text in place of our sentence. */
export function ErrorScreen({ kind, onRetry, casinoMessage }: { kind: ScreenKind; onRetry?: (() => void) | undefined; casinoMessage?: string | undefined }) {
  return (
    <div className="gp-screen" role="alert" data-testid="error-screen" data-kind={kind}>
      <div className="gp-screen-icon" aria-hidden="true">
        !
      </div>
      <h1>{t(`screens.${kind}.title`)}</h1>
      {casinoMessage ? (
        <p className="gp-casino-message" data-testid="casino-message">
          {casinoMessage}
        </p>
      ) : (
        <p>{t(`screens.${kind}.body`)}</p>
      )}
      {onRetry && (
        <button type="button" className="gp-btn gp-btn-secondary" onClick={onRetry}>
          {t('app.retry')}
        </button>
      )}
    </div>
  );
}
