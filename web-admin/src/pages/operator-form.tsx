/**
 * The profile form (create and edit), validated in the browser by the API's own rules: the
 * provider's profile field schemas (operator id, tenant id, embed origins, abandoned-round
 * policy) and the game core's currencies, games and amount parsing (decimals of the currency).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { GAME_INFO, GAME_TYPES } from '@gp/game-core/games';
import { CURRENCY_CODES, parseAmount, type CurrencyCode } from '@gp/game-core/money';
import { abandonedRoundPolicySchema, operatorIdSchema, originSchema, SANDBOX_CALLBACK_BASE, tenantIdSchema } from '@gp/provider-schemas';
import { useEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { exact, type Operator } from '../api.js';
import { ResponsibleGamingFields, rgBodyOf, rgFormOf, rgFormSchema } from './responsible-gaming-fields.js';
import { amountText, decimalsOf } from '../format.js';

const amount = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, 'A positive number such as 0.10');

export const profileFormSchema = z
  .object({
    operatorId: operatorIdSchema,
    tenantId: z.union([tenantIdSchema, z.literal('')]),
    currency: z.enum(CURRENCY_CODES as [CurrencyCode, ...CurrencyCode[]]),
    callbackBaseUrl: z
      .string()
      .trim()
      .min(1, 'Enter the casino wallet’s address, such as https://wallet.casino.example/provider (or sandbox://demo-casino for demos).')
      .max(2000),
    minBet: amount,
    maxBet: z.union([amount, z.literal('')]),
    stakeStep: amount,
    maxPayout: amount,
    enabledGames: z.array(z.enum(GAME_TYPES)),
    showBalanceInEmbed: z.boolean(),
    allowedEmbedOrigins: z.string().max(20_000),
    abandonedRoundPolicy: abandonedRoundPolicySchema,
    rg: rgFormSchema,
    enabled: z.boolean(),
  })
  .superRefine((v, ctx) => {
    const rg = rgBodyOf(v.rg);
    if ('field' in rg) ctx.addIssue({ code: 'custom', path: ['rg', rg.field], message: rg.message });
    const minor: Record<string, bigint | null> = {};
    for (const field of ['minBet', 'maxBet', 'stakeStep', 'maxPayout'] as const) {
      if (!v[field]) continue;
      try {
        minor[field] = parseAmount(v[field], v.currency, { field });
      } catch (err) {
        // the game core's rule, in words (issue 29: it read "minBet must be a number with at most 2 decimals for GBP")
        const text = err instanceof Error ? err.message : '';
        const message =
          /decimal/i.test(text) || !text
            ? `${v.currency} amounts have at most ${decimalsOf(v.currency)} decimals.`
            : /positive|zero|greater/i.test(text)
              ? 'Must be more than zero.'
              : text;
        ctx.addIssue({ code: 'custom', path: [field], message });
      }
    }
    const step = minor.stakeStep;
    if (step && minor.minBet && minor.minBet % step !== 0n) ctx.addIssue({ code: 'custom', path: ['minBet'], message: 'Must be a multiple of the stake step' });
    if (step && minor.maxBet && minor.maxBet % step !== 0n) ctx.addIssue({ code: 'custom', path: ['maxBet'], message: 'Must be a multiple of the stake step' });
    if (minor.maxBet && minor.minBet && minor.maxBet < minor.minBet)
      ctx.addIssue({ code: 'custom', path: ['maxBet'], message: 'Must not be below the minimum bet' });
    const callback = callbackProblem(v.callbackBaseUrl);
    if (callback) ctx.addIssue({ code: 'custom', path: ['callbackBaseUrl'], message: callback });
    for (const line of originLines(v.allowedEmbedOrigins)) {
      if (!originSchema.safeParse(line).success)
        ctx.addIssue({ code: 'custom', path: ['allowedEmbedOrigins'], message: `${line}: an origin such as https://casino.example (no path, no wildcard)` });
    }
  });

/** What is wrong with a callback base URL, in plain words (the server refuses the same; issue 29: user:password was not flagged). */
export function callbackProblem(text: string): string | null {
  const s = text.trim();
  if (s === SANDBOX_CALLBACK_BASE) return null;
  let url: URL | null = null;
  try {
    url = new URL(s);
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || !url.hostname)
    return 'Enter the casino wallet’s address, such as https://wallet.casino.example/provider (or sandbox://demo-casino for demos).';
  if (url.username || url.password)
    return 'Remove the “user:password@” part: our calls are signed with the shared secret, and a password in an address ends up in logs.';
  return null;
}

const FIELD_NAMES: Record<string, string> = {
  operatorId: 'Operator id',
  tenantId: 'Casino (tenant)',
  callbackBaseUrl: 'Callback base URL',
  allowedEmbedOrigins: 'Allowed embed origins',
};

/** zod's own messages ("Too small: expected string to have >=1 characters") said plainly (issue 29). */
export function plainMessage(issue: { code: string; path?: PropertyKey[]; minimum?: unknown; maximum?: unknown; origin?: string }): string | undefined {
  const field = String(issue.path?.[0] ?? '');
  const name = FIELD_NAMES[field] ?? 'This field';
  if (issue.code === 'too_small' && issue.origin === 'string')
    return Number(issue.minimum) <= 1 ? `${name} is required.` : `${name} needs at least ${String(issue.minimum)} characters.`;
  if (issue.code === 'too_big' && issue.origin === 'string') return `${name} takes at most ${String(issue.maximum)} characters.`;
  if (issue.code === 'too_small' && issue.origin === 'number') return `At least ${String(issue.minimum)}.`;
  if (issue.code === 'invalid_type' && field === 'abandonedRoundPolicy') return 'A whole number of hours.';
  return undefined;
}

/**
 * Limits a new profile starts with, per currency (issue 29: a BTC profile kept USD's 100 max bet):
 * about 0.10 / 100 / 100,000 US dollars in each, rounded, with the currency's smallest unit as
 * the step (a cent for the 2-decimal ones). The operator edits them before saving.
 */
export const CURRENCY_DEFAULTS: Record<CurrencyCode, { minBet: string; maxBet: string; stakeStep: string; maxPayout: string }> = {
  USD: { minBet: '0.10', maxBet: '100', stakeStep: '0.01', maxPayout: '100000' },
  EUR: { minBet: '0.10', maxBet: '100', stakeStep: '0.01', maxPayout: '100000' },
  GBP: { minBet: '0.10', maxBet: '100', stakeStep: '0.01', maxPayout: '100000' },
  USDT: { minBet: '0.10', maxBet: '100', stakeStep: '0.01', maxPayout: '100000' },
  USDC: { minBet: '0.10', maxBet: '100', stakeStep: '0.01', maxPayout: '100000' },
  BTC: { minBet: '0.000001', maxBet: '0.001', stakeStep: '0.00000001', maxPayout: '1' },
  uBTC: { minBet: '1', maxBet: '1000', stakeStep: '0.01', maxPayout: '1000000' },
  ETH: { minBet: '0.00005', maxBet: '0.05', stakeStep: '0.000001', maxPayout: '50' },
  LTC: { minBet: '0.001', maxBet: '1', stakeStep: '0.00000001', maxPayout: '1000' },
  DOGE: { minBet: '1', maxBet: '1000', stakeStep: '0.00000001', maxPayout: '1000000' },
  BNB: { minBet: '0.0002', maxBet: '0.2', stakeStep: '0.00000001', maxPayout: '200' },
  SOL: { minBet: '0.001', maxBet: '1', stakeStep: '0.00000001', maxPayout: '1000' },
  XRP: { minBet: '0.2', maxBet: '200', stakeStep: '0.000001', maxPayout: '200000' },
  ADA: { minBet: '0.2', maxBet: '200', stakeStep: '0.000001', maxPayout: '200000' },
  TRX: { minBet: '1', maxBet: '1000', stakeStep: '0.000001', maxPayout: '1000000' },
  XLM: { minBet: '1', maxBet: '1000', stakeStep: '0.0000001', maxPayout: '1000000' },
  ZEC: { minBet: '0.003', maxBet: '3', stakeStep: '0.00000001', maxPayout: '3000' },
};

export type ProfileForm = z.output<typeof profileFormSchema>;
export type ProfileInput = z.input<typeof profileFormSchema>;

const originLines = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function formOf(op: Operator | null): ProfileForm {
  return {
    operatorId: op?.operatorId ?? '',
    tenantId: op?.tenantId ?? '',
    currency: (op?.currency ?? 'USD') as CurrencyCode,
    callbackBaseUrl: op?.callbackBaseUrl ?? 'https://',
    minBet: amountText(op?.minBet ?? CURRENCY_DEFAULTS.USD.minBet),
    maxBet: op ? amountText(op.maxBet ?? '') : CURRENCY_DEFAULTS.USD.maxBet,
    stakeStep: amountText(op?.stakeStep ?? CURRENCY_DEFAULTS.USD.stakeStep),
    maxPayout: amountText(op?.maxPayout ?? CURRENCY_DEFAULTS.USD.maxPayout),
    enabledGames: (op?.enabledGames ?? [...GAME_TYPES]) as ProfileForm['enabledGames'],
    showBalanceInEmbed: op?.theme.showBalanceInEmbed ?? true,
    allowedEmbedOrigins: (op?.allowedEmbedOrigins ?? []).join('\n'),
    abandonedRoundPolicy: op?.abandonedRoundPolicy ?? { afterHours: 24, mines: 'cashout', blackjack: 'stand' },
    rg: rgFormOf(op?.responsibleGaming),
    enabled: op?.enabled ?? true,
  };
}

/** The request body (amounts as exact JSON numbers). */
export function bodyOf(v: ProfileForm, withTenant: boolean) {
  return {
    currency: v.currency,
    callbackBaseUrl: v.callbackBaseUrl.trim(),
    minBet: exact(v.minBet),
    maxBet: v.maxBet ? exact(v.maxBet) : null,
    stakeStep: exact(v.stakeStep),
    maxPayout: exact(v.maxPayout),
    enabledGames: v.enabledGames,
    theme: { showBalanceInEmbed: v.showBalanceInEmbed },
    allowedEmbedOrigins: originLines(v.allowedEmbedOrigins),
    abandonedRoundPolicy: v.abandonedRoundPolicy,
    responsibleGaming: (() => {
      const rg = rgBodyOf(v.rg);
      return 'value' in rg ? rg.value : null;
    })(),
    enabled: v.enabled,
    ...(withTenant ? { tenantId: v.tenantId || null } : {}),
  };
}

export function ProfileFormView({
  initial,
  mode,
  platform,
  tenants,
  onSubmit,
  submitLabel,
}: {
  initial: ProfileForm;
  mode: 'create' | 'edit';
  platform: boolean;
  tenants: string[];
  onSubmit: (v: ProfileForm) => Promise<void>;
  submitLabel: string;
}) {
  const { register, handleSubmit, watch, formState, getValues, setValue } = useForm<ProfileInput, unknown, ProfileForm>({
    resolver: zodResolver(profileFormSchema, { error: plainMessage }),
    defaultValues: initial,
  });
  const currency = watch('currency');
  // A new profile's limits follow the currency while the operator has not typed their own.
  const lastCurrency = useRef(currency);
  useEffect(() => {
    const from = lastCurrency.current;
    lastCurrency.current = currency;
    if (mode !== 'create' || from === currency) return;
    const before = CURRENCY_DEFAULTS[from as CurrencyCode];
    const next = CURRENCY_DEFAULTS[currency as CurrencyCode];
    if (!before || !next) return;
    for (const f of ['minBet', 'maxBet', 'stakeStep', 'maxPayout'] as const) {
      if (getValues(f) === before[f]) setValue(f, next[f], { shouldValidate: formState.isSubmitted });
    }
  }, [currency, mode, getValues, setValue, formState.isSubmitted]);
  const err = (name: keyof ProfileForm | string) => {
    const e = name.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], formState.errors) as { message?: string } | undefined;
    return e?.message ? <em>{e.message}</em> : null;
  };
  return (
    <form onSubmit={(e) => void handleSubmit(onSubmit)(e)} noValidate className="profile-form" data-testid="profile-form">
      <fieldset>
        <legend>Identity</legend>
        <div className="form-grid">
          <label className="field">
            <span>Operator id</span>
            <input {...register('operatorId')} disabled={mode === 'edit'} placeholder="casino-a-usd" data-testid="f-operatorId" />
            {err('operatorId')}
          </label>
          <label className="field">
            <span>Casino (tenant)</span>
            {platform ? (
              <>
                <input {...register('tenantId')} list="tenants" placeholder="casino-a" data-testid="f-tenantId" />
                <datalist id="tenants">
                  {tenants.map((t) => (
                    <option key={t} value={t} />
                  ))}
                </datalist>
              </>
            ) : (
              <input {...register('tenantId')} disabled />
            )}
            {err('tenantId')}
          </label>
          <label className="field">
            <span>Currency</span>
            <select {...register('currency')} disabled={mode === 'edit'} data-testid="f-currency">
              {CURRENCY_CODES.map((c) => (
                <option key={c} value={c}>
                  {c} ({decimalsOf(c)} decimals)
                </option>
              ))}
            </select>
          </label>
          <label className="field span-3">
            <span>Callback base URL</span>
            <input {...register('callbackBaseUrl')} placeholder="https://wallet.casino.example/provider" data-testid="f-callbackBaseUrl" />
            {err('callbackBaseUrl')}
            <small className="hint">
              The casino's wallet interface. https:// to a public host in production; no user info; sandbox://demo-casino for demos.
            </small>
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>
          Limits ({currency}, up to {decimalsOf(currency)} decimals)
        </legend>
        <div className="form-grid four">
          {(['minBet', 'maxBet', 'stakeStep', 'maxPayout'] as const).map((f) => (
            <label className="field" key={f}>
              <span>{{ minBet: 'Minimum bet', maxBet: 'Maximum bet (empty: none)', stakeStep: 'Stake step', maxPayout: 'Maximum payout' }[f]}</span>
              <div className="input-suffix">
                <input {...register(f)} inputMode="decimal" data-testid={`f-${f}`} />
                <span>{currency}</span>
              </div>
              {err(f)}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Games and embedding</legend>
        <div className="checks">
          {GAME_TYPES.map((g) => (
            <label key={g} className="check">
              <input type="checkbox" value={g} {...register('enabledGames')} data-testid={`f-game-${g}`} />
              {GAME_INFO[g].name}
            </label>
          ))}
        </div>
        <div className="form-grid">
          <label className="field span-2">
            <span>Allowed embed origins (one per line)</span>
            <textarea rows={3} {...register('allowedEmbedOrigins')} placeholder="https://casino.example" data-testid="f-origins" />
            {err('allowedEmbedOrigins')}
          </label>
          <label className="check top">
            <input type="checkbox" {...register('showBalanceInEmbed')} /> Show the balance in the embedded game
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>Abandoned rounds</legend>
        <div className="form-grid">
          <label className="field">
            <span>Close after (hours idle)</span>
            <input type="number" min={1} {...register('abandonedRoundPolicy.afterHours', { valueAsNumber: true })} />
            {err('abandonedRoundPolicy.afterHours')}
          </label>
          <label className="field">
            <span>Mines</span>
            <select {...register('abandonedRoundPolicy.mines')}>
              <option value="cashout">Cash out (rounds with a reveal)</option>
              <option value="keep_open">Keep open</option>
            </select>
          </label>
          <label className="field">
            <span>Blackjack</span>
            <select {...register('abandonedRoundPolicy.blackjack')}>
              <option value="stand">Stand every open hand</option>
              <option value="keep_open">Keep open</option>
            </select>
          </label>
        </div>
      </fieldset>
      <ResponsibleGamingFields register={register} setValue={setValue} on={watch('rg.on')} error={err} />
      <div className="form-actions">
        <label className="check">
          <input type="checkbox" {...register('enabled')} /> Enabled (players can launch games)
        </label>
        <button className="btn primary" type="submit" disabled={formState.isSubmitting} data-testid="profile-submit">
          {formState.isSubmitting ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
