/**
 * The bet amount (CONTRACT.md §3): minBet, maxBet, stakeStep and the currency's decimals, with
 * ½, 2×, min and max. Integer minor units throughout (BigInt), never float arithmetic.
 */
import { useEffect, useId, useState } from 'react';
import { useGameEnv } from '../app/env';
import { fromInput, readTyped, separators, toInput } from '../lib/format';
import { t } from '../i18n';
import { formatMinor, parseMinor, payoutOf, toDecimalText, type Minor } from '../lib/money';
import { doubleStake, halfStake, largestPayout, maxStake, maxStakeForPayout, minStake, mult4Of, stakeProblem } from '../lib/stake';

/**
 * `multiplier`: the win multiplier of the current settings (profit on win shown); `maxMultiplier`:
 * the largest one they can reach — a stake whose largest payout passes the profile's maxPayout is
 * refused by the server, so the field says so before the bet (and the games disable their button);
 * with `capped` (Mines) such a win is paid at maxPayout instead, which the field says.
 */
export function BetAmount({
  disabled,
  multiplier,
  maxMultiplier,
  capped,
}: {
  disabled: boolean;
  multiplier?: number | null;
  maxMultiplier?: number | null;
  capped?: boolean;
}) {
  const env = useGameEnv();
  const { config } = env;
  const id = useId();
  const [text, setText] = useState(env.stake === null ? '' : toInput(toDecimalText(env.stake, config.decimals)));
  const [typing, setTyping] = useState(false);

  useEffect(() => {
    if (!typing && env.stake !== null) setText(toInput(toDecimalText(env.stake, config.decimals)));
  }, [env.stake, typing, config.decimals]);

  const onText = (value: string) => {
    setText(value);
    setTyping(true);
    env.setStake(value.trim() === '' ? null : parseMinor(fromInput(value), config.decimals));
  };
  const set = (m: Minor) => {
    setTyping(false);
    setText(toInput(toDecimalText(m, config.decimals)));
    env.setStake(m);
  };

  const fmt = (m: Minor) => formatMinor(m, config.decimals);
  let problem: string | null = null;
  let note: string | null = null;
  if (env.stake === null) {
    const read = readTyped(text);
    problem =
      'problem' in read && read.problem === 'ambiguous'
        ? t('bet.ambiguous', { text: text.trim(), decimal: separators().decimal, example: toInput('1.5') })
        : text.trim() === '' || parseMinor(fromInput(text), 12) === null
          ? t('bet.invalid')
          : t('bet.tooManyDecimals', { currency: config.currency, decimals: config.decimals });
  } else {
    const p = stakeProblem(env.stake, config);
    if (p === 'belowMin') problem = t('bet.belowMin', { min: env.money(config.minBet) });
    if (p === 'aboveMax' && config.maxBet !== null) problem = t('bet.aboveMax', { max: env.money(config.maxBet) });
    if (p === 'notStep') problem = t('bet.notStep', { step: env.money(config.stakeStep) });
    if (!p && maxMultiplier) {
      const m4 = mult4Of(maxMultiplier);
      const top = largestPayout(env.stake, m4);
      if (top > config.maxPayout) {
        const most = maxStakeForPayout(m4, config.maxPayout, config);
        if (capped) note = t('bet.payoutCapped', { max: env.money(config.maxPayout) });
        else
          problem =
            most === null
              ? t('bet.payoutTooHighAny', { win: env.money(top), max: env.money(config.maxPayout) })
              : t('bet.payoutTooHigh', { win: env.money(top), max: env.money(config.maxPayout), stake: env.money(most) });
      }
    }
  }
  const base = env.stake ?? config.minBet;
  const profit = multiplier && env.stake !== null && !problem ? payoutOf(env.stake, multiplier) - env.stake : null;

  return (
    <div className="gp-field gp-amount">
      <div className="gp-label-row">
        <label className="gp-label" htmlFor={id}>
          {t('bet.amount')}
        </label>
        <span className="gp-label-aside">{config.currency}</span>
      </div>
      <div className={`gp-amount-box${problem ? ' is-invalid' : ''}`}>
        <input
          id={id}
          className="gp-amount-input"
          inputMode="decimal"
          autoComplete="off"
          spellCheck={false}
          value={text}
          disabled={disabled}
          onChange={(e) => onText(e.target.value)}
          onBlur={() => {
            setTyping(false);
            if (env.stake !== null) setText(toInput(toDecimalText(env.stake, config.decimals)));
          }}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${id}-hint`}
          data-testid="amount-input"
        />
        <button
          type="button"
          className="gp-chip"
          onClick={() => set(halfStake(base, config))}
          disabled={disabled}
          aria-label={t('bet.halfLabel')}
          data-testid="amount-half"
        >
          {t('bet.half')}
        </button>
        <button
          type="button"
          className="gp-chip"
          onClick={() => set(doubleStake(base, config))}
          disabled={disabled}
          aria-label={t('bet.doubleLabel')}
          data-testid="amount-double"
        >
          {t('bet.double')}
        </button>
      </div>
      <div className="gp-amount-row">
        <button
          type="button"
          className="gp-chip is-wide"
          onClick={() => set(minStake(config))}
          disabled={disabled}
          aria-label={t('bet.minLabel')}
          data-testid="amount-min"
        >
          {t('bet.min')}
        </button>
        <button
          type="button"
          className="gp-chip is-wide"
          onClick={() => set(maxStake(config, env.balance))}
          disabled={disabled}
          aria-label={t('bet.maxLabel')}
          data-testid="amount-max"
        >
          {t('bet.max')}
        </button>
      </div>
      <p
        id={`${id}-hint`}
        className={`gp-hint${problem ? ' is-error' : note ? ' is-note' : ''}`}
        data-testid="amount-hint"
        data-problem={problem ? 'true' : undefined}
      >
        {problem ??
          note ??
          (config.maxBet === null
            ? t('bet.limitsNoMax', { min: fmt(config.minBet), step: fmt(config.stakeStep) })
            : t('bet.limits', { min: fmt(config.minBet), max: fmt(config.maxBet), step: fmt(config.stakeStep) }))}
      </p>
      {multiplier !== undefined && (
        <div className="gp-profit">
          <span>{t('bet.profitOnWin')}</span>
          <output data-testid="profit-on-win">{profit === null ? '—' : env.money(profit)}</output>
        </div>
      )}
    </div>
  );
}
