/** Pieces every game uses: the layout (controls beside the stage), the action runner, the bet button, the notice line. */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useGameEnv } from '../app/env';
import { t, errorText } from '../i18n';
import { ApiError } from '../lib/api';
import { stakeProblem } from '../lib/stake';

export function GameLayout({ controls, stage, game }: { controls: ReactNode; stage: ReactNode; game: string }) {
  return (
    <div className="gp-game" data-game={game} data-testid={`game-${game}`}>
      <section className="gp-stage" aria-label={t(`games.${game}`)}>{stage}</section>
      <section className="gp-controls">{controls}</section>
    </div>
  );
}

/** A sentence for a failed request (never the raw code). */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return errorText('UNKNOWN');
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

/** Whether the stake can be bet now. */
export function useCanBet(busy: boolean): boolean {
  const env = useGameEnv();
  return !busy && !env.locked && env.stake !== null && stakeProblem(env.stake, env.config) === null;
}

export function BetButton({ label, onClick, disabled, busy, testId = 'bet-button', variant = 'primary' }: { label: string; onClick(): void; disabled: boolean; busy?: boolean; testId?: string; variant?: 'primary' | 'cashout' }) {
  return (
    <button type="button" className={`gp-bet-btn is-${variant}${busy ? ' is-busy' : ''}`} onClick={onClick} disabled={disabled} data-testid={testId} aria-busy={busy || undefined}>
      {label}
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
      <label className="gp-label" htmlFor={htmlFor}>{label}</label>
      {children}
    </div>
  );
}

/** A row of choice buttons (risk, rows, mine count...). */
export function Segmented<T extends string | number>({ label, options, value, onChange, disabled, render, name }: { label: string; options: readonly T[]; value: NoInfer<T>; onChange(v: NoInfer<T>): void; disabled?: boolean; render?(v: NoInfer<T>): string; name: string }) {
  return (
    <div className="gp-field" role="radiogroup" aria-label={label}>
      <span className="gp-label">{label}</span>
      <div className="gp-segmented">
        {options.map((o) => (
          <button key={String(o)} type="button" role="radio" aria-checked={o === value} className={o === value ? 'is-on' : ''} onClick={() => onChange(o)} disabled={disabled} data-testid={`${name}-${o}`}>
            {render ? render(o) : String(o)}
          </button>
        ))}
      </div>
    </div>
  );
}

export function Select<T extends string | number>({ label, options, value, onChange, disabled, render, id }: { label: string; options: readonly T[]; value: NoInfer<T>; onChange(v: NoInfer<T>): void; disabled?: boolean; render?(v: NoInfer<T>): string; id: string }) {
  return (
    <Field label={label} htmlFor={id}>
      <select id={id} className="gp-select" value={String(value)} disabled={disabled} onChange={(e) => onChange(options.find((o) => String(o) === e.target.value) ?? value)} data-testid={id}>
        {options.map((o) => (
          <option key={String(o)} value={String(o)}>{render ? render(o) : String(o)}</option>
        ))}
      </select>
    </Field>
  );
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Whether the player asked for less motion (animations shortened). */
export const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;
