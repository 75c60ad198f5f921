/** Pieces every game uses: the layout (controls beside the stage), the action runner, the bet button, the notice line. */
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useGameEnv } from '../app/env';
import { t, errorText } from '../i18n';
import { ApiError } from '../lib/api';
import { largestPayout, mult4Of, stakeProblem } from '../lib/stake';

export function GameLayout({ controls, stage, game }: { controls: ReactNode; stage: ReactNode; game: string }) {
  return (
    <div className="gp-game" data-game={game} data-testid={`game-${game}`}>
      <FitStage label={t(`games.${game}`)}>{stage}</FitStage>
      <section className="gp-controls">{controls}</section>
    </div>
  );
}

/**
 * The stage, scaled to the space it has (issue 29): the game is laid out at the stage's width and,
 * when its natural size does not fit, drawn smaller (a CSS transform, so clicks land where the
 * tiles are drawn). Under `fill=1` it fits the height too (the iframe's viewport is all there is);
 * in a page of natural height only the width (wide split hands, long pay strips).
 */
function FitStage({ label, children }: { label: string; children: ReactNode }) {
  const outer = useRef<HTMLElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const o = outer.current;
    const i = inner.current;
    if (!o || !i) return;
    const fill = document.documentElement.classList.contains('is-fill');
    let last = '';
    const measure = () => {
      const cs = getComputedStyle(o);
      const availW = o.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      const availH = o.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
      if (availW <= 0) return;
      // the natural size at the stage's width
      const keep = { t: i.style.transform, h: i.style.minHeight, m: i.style.marginBottom };
      i.style.transform = 'none';
      i.style.minHeight = '0px';
      i.style.marginBottom = '0px';
      const natW = Math.max(i.scrollWidth, availW);
      const natH = i.scrollHeight;
      let s = Math.min(1, availW / natW);
      if (fill && availH > 0 && natH > 0) s = Math.min(s, availH / natH);
      s = Math.max(0.3, Math.floor(s * 1000) / 1000);
      const next = s >= 1 ? `1|${fill ? availH : 0}` : `${s}|${fill ? availH / s : 0}|${natH}`;
      i.style.transform = keep.t;
      i.style.minHeight = keep.h;
      i.style.marginBottom = keep.m;
      if (next === last) return;
      last = next;
      i.style.transform = s >= 1 ? '' : `scale(${s})`;
      i.style.minHeight = fill ? `${Math.floor(availH / s)}px` : '';
      // a page of natural height keeps no blank space under a scaled stage
      i.style.marginBottom = !fill && s < 1 ? `${-Math.ceil(natH * (1 - s))}px` : '';
      i.dataset.scale = String(s);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(o);
    for (const c of Array.from(i.children)) ro.observe(c);
    const mo = new MutationObserver(measure);
    mo.observe(i, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
    return () => {
      ro.disconnect();
      mo.disconnect();
    };
  }, []);
  return (
    <section className="gp-stage" aria-label={label} ref={outer}>
      <div className="gp-fit" ref={inner} data-testid="stage-fit">
        {children}
      </div>
    </section>
  );
}

/** A sentence for a failed request (never the raw code). */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return errorText('UNKNOWN');
  // The casino's own words (a loss limit, a time-out) replace ours; React writes them as text, never HTML.
  if (err.casinoMessage) return err.casinoMessage;
  let text = errorText(err.code);
  if (err.code !== 'INVALID_GAME_PARAMS' && err.roundStatus === 'cancelled') text += ` ${t('errors.roundRefunded')}`;
  if (err.roundStatus === 'rollback_pending') text += ` ${t('errors.roundRefundPending')}`;
  return text;
}

export type Notice = { kind: 'info' | 'win' | 'loss' | 'error'; text: string } | null;

/** Runs player actions one at a time: busy flag, tracked for the currency switch, errors as sentences. */
export function useAction() {
  const env = useGameEnv();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const busyRef = useRef(false);
  const run = useCallback(
    async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
      if (busyRef.current) return undefined;
      busyRef.current = true;
      setBusy(true);
      setNotice(null);
      try {
        return await env.track(work);
      } catch (err) {
        if (mounted.current) setNotice({ kind: 'error', text: describeError(err) });
        return undefined;
      } finally {
        busyRef.current = false;
        if (mounted.current) setBusy(false);
      }
    },
    [env],
  );
  return { busy, run, notice, setNotice, mounted };
}

/**
 * Whether the stake can be bet now: a valid amount inside minBet / maxBet / the step and, when the
 * game refuses bets whose largest reachable payout passes maxPayout (every game but Mines, which
 * caps it), `maxMultiplier` (the largest multiplier of the chosen settings) keeps it within.
 */
export function useCanBet(busy: boolean, maxMultiplier?: number | null): boolean {
  const env = useGameEnv();
  if (busy || env.locked || env.stake === null || stakeProblem(env.stake, env.config) !== null) return false;
  return !overPayout(env.stake, maxMultiplier, env.config.maxPayout);
}

export const overPayout = (stake: bigint, maxMultiplier: number | null | undefined, maxPayout: bigint): boolean =>
  maxMultiplier !== null && maxMultiplier !== undefined && largestPayout(stake, mult4Of(maxMultiplier)) > maxPayout;

/** The bet button; `amount` (the stake as the page understood it) is written under the label, so the player sees what will be bet before the click. */
export function BetButton({
  label,
  onClick,
  disabled,
  busy,
  testId = 'bet-button',
  variant = 'primary',
  showStake = variant === 'primary',
}: {
  label: string;
  onClick(): void;
  disabled: boolean;
  busy?: boolean;
  testId?: string;
  variant?: 'primary' | 'cashout';
  showStake?: boolean;
}) {
  const env = useGameEnv();
  const amount = showStake && env.stake !== null && env.stake > 0n ? env.money(env.stake) : null;
  return (
    <button
      type="button"
      className={`gp-bet-btn is-${variant}${busy ? ' is-busy' : ''}`}
      onClick={onClick}
      disabled={disabled}
      data-testid={testId}
      aria-busy={busy || undefined}
    >
      {label}
      {amount ? (
        <small className="gp-bet-amount" data-testid={`${testId}-amount`}>
          {amount}
        </small>
      ) : null}
    </button>
  );
}

export function NoticeLine({ notice }: { notice: Notice }) {
  return (
    <p className={`gp-notice${notice ? ` is-${notice.kind}` : ''}`} role={notice?.kind === 'error' ? 'alert' : 'status'} data-testid="notice">
      {notice?.text ?? ''}
    </p>
  );
}

export function Field({ label, children, htmlFor }: { label: string; children: ReactNode; htmlFor?: string }) {
  return (
    <div className="gp-field">
      <label className="gp-label" htmlFor={htmlFor}>
        {label}
      </label>
      {children}
    </div>
  );
}

/** A row of choice buttons (risk, rows, mine count...). */
export function Segmented<T extends string | number>({
  label,
  options,
  value,
  onChange,
  disabled,
  render,
  name,
}: {
  label: string;
  options: readonly T[];
  value: NoInfer<T>;
  onChange(v: NoInfer<T>): void;
  disabled?: boolean;
  render?(v: NoInfer<T>): string;
  name: string;
}) {
  return (
    <div className="gp-field" role="radiogroup" aria-label={label}>
      <span className="gp-label">{label}</span>
      <div className="gp-segmented">
        {options.map((o) => (
          <button
            key={String(o)}
            type="button"
            role="radio"
            aria-checked={o === value}
            className={o === value ? 'is-on' : ''}
            onClick={() => onChange(o)}
            disabled={disabled}
            data-testid={`${name}-${o}`}
          >
            {render ? render(o) : String(o)}
          </button>
        ))}
      </div>
    </div>
  );
}

export function Select<T extends string | number>({
  label,
  options,
  value,
  onChange,
  disabled,
  render,
  id,
}: {
  label: string;
  options: readonly T[];
  value: NoInfer<T>;
  onChange(v: NoInfer<T>): void;
  disabled?: boolean;
  render?(v: NoInfer<T>): string;
  id: string;
}) {
  return (
    <Field label={label} htmlFor={id}>
      <select
        id={id}
        className="gp-select"
        value={String(value)}
        disabled={disabled}
        onChange={(e) => onChange(options.find((o) => String(o) === e.target.value) ?? value)}
        data-testid={id}
      >
        {options.map((o) => (
          <option key={String(o)} value={String(o)}>
            {render ? render(o) : String(o)}
          </option>
        ))}
      </select>
    </Field>
  );
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Whether the player asked for less motion (animations shortened). */
export const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;
