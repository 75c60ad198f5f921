/** The casino's balance (SPEC.md: casino-provided, never polled; compact in an embed). */
import { t } from '../i18n';
import { formatMinor, type Minor } from '../lib/money';
import { WalletIcon } from './icons';

export function Balance({ value, currency, decimals, compact }: { value: Minor | null; currency: string; decimals: number; compact: boolean }) {
  return (
    <div className={`gp-balance${compact ? ' is-compact' : ''}`} data-testid="balance" aria-label={t('app.balance')}>
      {!compact && <span className="gp-balance-label">{t('app.balance')}</span>}
      <span className="gp-balance-value">
        <WalletIcon />
        <output data-testid="balance-value" aria-live="polite">
          {value === null ? '—' : formatMinor(value, decimals)}
        </output>
        <span className="gp-currency">{currency}</span>
      </span>
    </div>
  );
}
