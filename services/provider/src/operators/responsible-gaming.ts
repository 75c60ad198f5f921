/**
 * Responsible gaming (issue 27): the operator profile's `responsibleGaming` rules, their overrides
 * per jurisdiction, and a session's effective rules. zod only, no Node built-ins: the admin
 * console's form and presets import this file through `@gp/provider-schemas`.
 *
 * Absent (`responsibleGaming: null`) means the behaviour before issue 27: autobet allowed, no
 * pacing, no reality check, nothing shown. A jurisdiction code is ISO 3166-1 alpha-2 (`GB`) or an
 * ISO 3166-2 subdivision (`CA-ON`); the session's rules take the override of its full code when
 * the profile has one, else the override of its country, else none (one override, never both).
 */
import { z } from 'zod';

export const AUTOBET_MODES = ['allowed', 'limited', 'disabled'] as const;
export type AutobetMode = (typeof AUTOBET_MODES)[number];

/** `GB`, `MT`, `CA-ON`, `US-NJ`: two letters, optionally a dash and 1 to 3 letters or digits. */
export const JURISDICTION = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;

export const jurisdictionSchema = z
  .string()
  .max(6)
  .transform((v) => v.trim().toUpperCase())
  .refine((v) => JURISDICTION.test(v), { message: 'an ISO 3166 code such as GB, MT or CA-ON' });

/** The rule fields (each optional in an override). */
const ruleFields = {
  autobet: z.enum(AUTOBET_MODES),
  /** With `limited`: the most rounds one autobet run may ask for (null: no maximum). */
  autobetMaxRounds: z.number().int().min(1).max(100_000).nullable(),
  /** With `limited`: an autobet run needs a loss limit. */
  autobetRequiresLossLimit: z.boolean(),
  /** The least time between the starts of two rounds of a player (0: no pacing). */
  minRoundIntervalMs: z.number().int().min(0).max(60_000),
  /** A reality check every this many minutes of play (null: none). */
  realityCheckMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .nullable(),
  /** Net position (wins − stakes this session) in the game's header. */
  showNetPosition: z.boolean(),
  /** Time played this session in the game's header. */
  showElapsedTime: z.boolean(),
};

export interface ResponsibleGamingRules {
  autobet: AutobetMode;
  autobetMaxRounds: number | null;
  autobetRequiresLossLimit: boolean;
  minRoundIntervalMs: number;
  realityCheckMinutes: number | null;
  showNetPosition: boolean;
  showElapsedTime: boolean;
}

/** Today's behaviour: what a profile without `responsibleGaming` plays by. */
export const DEFAULT_RULES: ResponsibleGamingRules = {
  autobet: 'allowed',
  autobetMaxRounds: null,
  autobetRequiresLossLimit: false,
  minRoundIntervalMs: 0,
  realityCheckMinutes: null,
  showNetPosition: false,
  showElapsedTime: false,
};

export const rulesOverrideSchema = z.object(ruleFields).partial().strict();
export type RulesOverride = z.output<typeof rulesOverrideSchema>;

export const responsibleGamingSchema = z
  .object({
    autobet: ruleFields.autobet.default(DEFAULT_RULES.autobet),
    autobetMaxRounds: ruleFields.autobetMaxRounds.default(DEFAULT_RULES.autobetMaxRounds),
    autobetRequiresLossLimit: ruleFields.autobetRequiresLossLimit.default(DEFAULT_RULES.autobetRequiresLossLimit),
    minRoundIntervalMs: ruleFields.minRoundIntervalMs.default(DEFAULT_RULES.minRoundIntervalMs),
    realityCheckMinutes: ruleFields.realityCheckMinutes.default(DEFAULT_RULES.realityCheckMinutes),
    showNetPosition: ruleFields.showNetPosition.default(DEFAULT_RULES.showNetPosition),
    showElapsedTime: ruleFields.showElapsedTime.default(DEFAULT_RULES.showElapsedTime),
    jurisdictions: z
      .record(z.string().max(6), rulesOverrideSchema)
      .default({})
      .transform((map, ctx) => {
        const out: Record<string, RulesOverride> = {};
        for (const [code, override] of Object.entries(map)) {
          const key = code.trim().toUpperCase();
          if (!JURISDICTION.test(key)) {
            ctx.addIssue({ code: 'custom', path: [code], message: `${code} is not an ISO 3166 code such as GB, MT or CA-ON` });
            return z.NEVER;
          }
          if (key in out) {
            ctx.addIssue({ code: 'custom', path: [code], message: `${key} is given twice` });
            return z.NEVER;
          }
          out[key] = override;
        }
        return out;
      })
      .refine((m) => Object.keys(m).length <= 300, { message: 'at most 300 jurisdictions' }),
  })
  .strict();

export type ResponsibleGaming = z.output<typeof responsibleGamingSchema>;

/** The effective rules of a session: answered as `rules` by POST /api/sessions. */
export interface EffectiveRules extends ResponsibleGamingRules {
  /** The casino's jurisdiction for the player (validate-session), or null when it sent none. */
  jurisdiction: string | null;
}

/** The override that applies to `jurisdiction`: its full code's, else its country's, else none. */
export function overrideFor(rg: ResponsibleGaming, jurisdiction: string | null): RulesOverride | null {
  if (!jurisdiction) return null;
  const full = rg.jurisdictions[jurisdiction];
  if (full) return full;
  const country = jurisdiction.split('-')[0]!;
  return rg.jurisdictions[country] ?? null;
}

/** The profile's rules with the matching override applied (DEFAULT_RULES without `responsibleGaming`). */
export function effectiveRules(rg: ResponsibleGaming | null | undefined, jurisdiction: string | null): EffectiveRules {
  const base: ResponsibleGamingRules = rg
    ? {
        autobet: rg.autobet,
        autobetMaxRounds: rg.autobetMaxRounds,
        autobetRequiresLossLimit: rg.autobetRequiresLossLimit,
        minRoundIntervalMs: rg.minRoundIntervalMs,
        realityCheckMinutes: rg.realityCheckMinutes,
        showNetPosition: rg.showNetPosition,
        showElapsedTime: rg.showElapsedTime,
      }
    : { ...DEFAULT_RULES };
  const override = rg ? overrideFor(rg, jurisdiction) : null;
  const rules: ResponsibleGamingRules = { ...base };
  if (override) for (const [k, v] of Object.entries(override)) if (v !== undefined) (rules as unknown as Record<string, unknown>)[k] = v;
  return { ...rules, jurisdiction };
}

/** A jurisdiction as a casino sent it, normalised; null when absent or not an ISO 3166 code. */
export function readJurisdiction(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const code = v.trim().toUpperCase();
  return JURISDICTION.test(code) ? code : null;
}

/**
 * The console's presets (docs/admin.md "Responsible gaming" says where each value comes from).
 * A preset fills the profile's fields; the staff member may change any of them before saving.
 */
export const RESPONSIBLE_GAMING_PRESETS: Record<'ukgc' | 'malta' | 'none', { label: string; value: ResponsibleGaming | null }> = {
  ukgc: {
    label: 'UK Gambling Commission (RTS)',
    value: {
      autobet: 'limited',
      autobetMaxRounds: 100,
      autobetRequiresLossLimit: true,
      minRoundIntervalMs: 2500,
      realityCheckMinutes: 60,
      showNetPosition: true,
      showElapsedTime: true,
      jurisdictions: {},
    },
  },
  malta: {
    label: 'Malta Gaming Authority',
    value: {
      autobet: 'allowed',
      autobetMaxRounds: null,
      autobetRequiresLossLimit: false,
      minRoundIntervalMs: 0,
      realityCheckMinutes: 60,
      showNetPosition: true,
      showElapsedTime: true,
      jurisdictions: {},
    },
  },
  none: { label: 'None (no rules)', value: null },
};
