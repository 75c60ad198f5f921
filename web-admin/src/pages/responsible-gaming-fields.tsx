/**
 * The profile form's responsible-gaming fields (issue 27): a preset (UK Gambling Commission RTS,
 * Malta, none) fills them, each stays editable; overrides per jurisdiction are a JSON object
 * checked with the provider's own schema. docs/admin.md "Responsible gaming" says where each
 * preset value comes from.
 */
import { RESPONSIBLE_GAMING_PRESETS, responsibleGamingSchema, type ResponsibleGaming } from '@gp/provider-schemas';
import type { ReactNode } from 'react';
import type { UseFormRegister, UseFormSetValue } from 'react-hook-form';
import { z } from 'zod';
import type { ProfileInput } from './operator-form.js';

/** The fields as the form holds them (numbers that may be empty as text). */
export const rgFormSchema = z.object({
  on: z.boolean(),
  autobet: z.enum(['allowed', 'limited', 'disabled']),
  autobetMaxRounds: z.string().trim(),
  autobetRequiresLossLimit: z.boolean(),
  minRoundIntervalMs: z.string().trim(),
  realityCheckMinutes: z.string().trim(),
  showNetPosition: z.boolean(),
  showElapsedTime: z.boolean(),
  jurisdictions: z.string().max(20_000),
});
export type RgForm = z.output<typeof rgFormSchema>;

const intOrNull = (s: string): number | null => (s === '' ? null : /^\d+$/.test(s) ? Number(s) : NaN);

export function rgFormOf(rg: ResponsibleGaming | null | undefined): RgForm {
  return {
    on: rg != null,
    autobet: rg?.autobet ?? 'allowed',
    autobetMaxRounds: rg?.autobetMaxRounds == null ? '' : String(rg.autobetMaxRounds),
    autobetRequiresLossLimit: rg?.autobetRequiresLossLimit ?? false,
    minRoundIntervalMs: String(rg?.minRoundIntervalMs ?? 0),
    realityCheckMinutes: rg?.realityCheckMinutes == null ? '' : String(rg.realityCheckMinutes),
    showNetPosition: rg?.showNetPosition ?? false,
    showElapsedTime: rg?.showElapsedTime ?? false,
    jurisdictions: rg && Object.keys(rg.jurisdictions).length > 0 ? JSON.stringify(rg.jurisdictions, null, 2) : '',
  };
}

/** The body's `responsibleGaming` (null: none), or the problem to show under `field`. */
export function rgBodyOf(v: RgForm): { value: ResponsibleGaming | null } | { field: keyof RgForm; message: string } {
  if (!v.on) return { value: null };
  let jurisdictions: unknown = {};
  if (v.jurisdictions.trim() !== '') {
    try {
      jurisdictions = JSON.parse(v.jurisdictions);
    } catch {
      return { field: 'jurisdictions', message: 'Write a JSON object such as {"GB": {"autobet": "limited"}}.' };
    }
  }
  const parsed = responsibleGamingSchema.safeParse({
    autobet: v.autobet,
    autobetMaxRounds: intOrNull(v.autobetMaxRounds),
    autobetRequiresLossLimit: v.autobetRequiresLossLimit,
    minRoundIntervalMs: intOrNull(v.minRoundIntervalMs) ?? 0,
    realityCheckMinutes: intOrNull(v.realityCheckMinutes),
    showNetPosition: v.showNetPosition,
    showElapsedTime: v.showElapsedTime,
    jurisdictions,
  });
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = (String(issue.path[0] ?? 'jurisdictions') as keyof RgForm) in rgFormOf(null) ? (String(issue.path[0]) as keyof RgForm) : 'jurisdictions';
  const where = issue.path.length > 1 ? `${issue.path.slice(1).join('.')}: ` : '';
  return { field, message: `${where}${issue.message}` };
}

export function ResponsibleGamingFields({
  register,
  setValue,
  on,
  error,
}: {
  register: UseFormRegister<ProfileInput>;
  setValue: UseFormSetValue<ProfileInput>;
  on: boolean;
  error: (name: string) => ReactNode;
}) {
  const applyPreset = (key: string) => {
    const preset = RESPONSIBLE_GAMING_PRESETS[key as keyof typeof RESPONSIBLE_GAMING_PRESETS];
    if (!preset) return;
    const form = rgFormOf(preset.value);
    for (const k of Object.keys(form) as (keyof RgForm)[]) setValue(`rg.${k}`, form[k] as never, { shouldDirty: true });
  };
  return (
    <fieldset data-testid="rg-fieldset">
      <legend>Responsible gaming</legend>
      <div className="form-grid">
        <label className="field">
          <span>Preset</span>
          <select defaultValue="" onChange={(e) => applyPreset(e.target.value)} data-testid="f-rg-preset">
            <option value="" disabled>
              Fill from a preset…
            </option>
            {Object.entries(RESPONSIBLE_GAMING_PRESETS).map(([k, p]) => (
              <option key={k} value={k}>
                {p.label}
              </option>
            ))}
          </select>
          <small className="hint">Fills the fields below; change any before saving. Sources: docs/admin.md.</small>
        </label>
        <label className="check top">
          <input type="checkbox" {...register('rg.on')} data-testid="f-rg-on" /> Apply responsible-gaming rules
        </label>
      </div>
      {on && (
        <div className="form-grid four">
          <label className="field">
            <span>Autobet</span>
            <select {...register('rg.autobet')} data-testid="f-rg-autobet">
              <option value="allowed">Allowed</option>
              <option value="limited">Limited (rounds, loss limit)</option>
              <option value="disabled">Disabled</option>
            </select>
          </label>
          <label className="field">
            <span>Most rounds per run (empty: none)</span>
            <input {...register('rg.autobetMaxRounds')} inputMode="numeric" data-testid="f-rg-maxRounds" />
            {error('rg.autobetMaxRounds')}
          </label>
          <label className="field">
            <span>Least time between rounds (ms)</span>
            <input {...register('rg.minRoundIntervalMs')} inputMode="numeric" data-testid="f-rg-interval" />
            {error('rg.minRoundIntervalMs')}
          </label>
          <label className="field">
            <span>Reality check every (minutes, empty: none)</span>
            <input {...register('rg.realityCheckMinutes')} inputMode="numeric" data-testid="f-rg-reality" />
            {error('rg.realityCheckMinutes')}
          </label>
          <label className="check">
            <input type="checkbox" {...register('rg.autobetRequiresLossLimit')} data-testid="f-rg-lossLimit" /> Autobet needs a loss limit
          </label>
          <label className="check">
            <input type="checkbox" {...register('rg.showNetPosition')} data-testid="f-rg-net" /> Show net position
          </label>
          <label className="check">
            <input type="checkbox" {...register('rg.showElapsedTime')} data-testid="f-rg-elapsed" /> Show time played
          </label>
          <label className="field span-4">
            <span>Overrides per jurisdiction (JSON: ISO 3166 code → fields)</span>
            <textarea
              rows={4}
              {...register('rg.jurisdictions')}
              placeholder={'{"GB": {"autobet": "limited", "autobetMaxRounds": 100}, "CA-ON": {"showNetPosition": true}}'}
              data-testid="f-rg-jurisdictions"
            />
            {error('rg.jurisdictions')}
            <small className="hint">The casino's validate-session names the player's jurisdiction; its full code's override applies, else its country's.</small>
          </label>
        </div>
      )}
    </fieldset>
  );
}
