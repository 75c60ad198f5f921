/**
 * Responsible gaming in the header (issue 27): the session's net position (wins − stakes) and the
 * time played, each when the session's rules ask for it.
 */
import { t } from '../i18n';
import type { Minor } from '../lib/money';

/** H:MM:SS (or M:SS under an hour). */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** A signed amount: +1.00 USD, −2.50 USD (a real minus sign). */
export function signedMoney(net: Minor, money: (m: Minor) => string): string {
  if (net > 0n) return `+${money(net)}`;
  if (net < 0n) return `\u2212${money(-net)}`;
  return money(0n);
}

export function SessionSummary({
  net,
  elapsedMs,
  showNet,
  showElapsed,
  money,
}: {
  net: Minor;
  elapsedMs: number;
  showNet: boolean;
  showElapsed: boolean;
  money: (m: Minor) => string;
}) {
  if (!showNet && !showElapsed) return null;
  return (
    <div className="gp-rg-summary" role="group" aria-label={t('rg.header')} data-testid="rg-summary">
      {showNet && (
        <span className={`gp-rg-item${net > 0n ? ' is-up' : net < 0n ? ' is-down' : ''}`} data-testid="rg-net" data-minor={net.toString()}>
          <span className="gp-rg-label">{t('rg.net')}</span>
          <span className="gp-rg-value">{signedMoney(net, money)}</span>
        </span>
      )}
      {showElapsed && (
        <span className="gp-rg-item" data-testid="rg-elapsed">
          <span className="gp-rg-label">{t('rg.elapsed')}</span>
          <span className="gp-rg-value">{formatElapsed(elapsedMs)}</span>
        </span>
      )}
    </div>
  );
}

/** The reality check (issue 27): betting pauses; time played and net position; Continue or Leave. */
export function RealityCheck({
  elapsedMs,
  net,
  money,
  onContinue,
  onLeave,
}: {
  elapsedMs: number;
  net: Minor;
  money: (m: Minor) => string;
  onContinue(): void;
  onLeave(): void;
}) {
  return (
    <div className="gp-overlay gp-rg-overlay">
      <div
        className="gp-rg-dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="gp-rg-title"
        aria-describedby="gp-rg-body"
        data-testid="reality-check"
      >
        <h2 id="gp-rg-title">{t('rg.realityTitle')}</h2>
        <div id="gp-rg-body">
          <p data-testid="reality-elapsed">{t('rg.realityBody', { time: formatElapsed(elapsedMs) })}</p>
          <p data-testid="reality-net">{t('rg.realityNet', { amount: signedMoney(net, money) })}</p>
        </div>
        <div className="gp-btn-row">
          <button type="button" className="gp-btn gp-btn-secondary" onClick={onLeave} data-testid="reality-leave">
            {t('rg.leave')}
          </button>
          {/* autoFocus: the dialog takes the keyboard; Continue is the calm default */}
          <button type="button" className="gp-btn" onClick={onContinue} autoFocus data-testid="reality-continue">
            {t('rg.continue')}
          </button>
        </div>
      </div>
    </div>
  );
}

/** After Leave: the game is closed on this page. */
export function LeftScreen() {
  return (
    <div className="gp-screen" role="status" data-testid="left-screen">
      <h1>{t('rg.leftTitle')}</h1>
      <p>{t('rg.leftBody')}</p>
    </div>
  );
}
