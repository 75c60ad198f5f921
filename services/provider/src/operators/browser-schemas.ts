/** What the admin console's forms import from the provider (browser-safe): the profile's field rules. */
export { abandonedRoundPolicySchema, DEFAULT_ABANDONED_ROUND_POLICY, SANDBOX_CALLBACK_BASE, type AbandonedRoundPolicy } from './operator-schema.js';
export { embedOrigin, operatorIdSchema, originSchema, tenantIdSchema } from './profile-fields.js';
export {
  AUTOBET_MODES,
  DEFAULT_RULES,
  effectiveRules,
  RESPONSIBLE_GAMING_PRESETS,
  responsibleGamingSchema,
  rulesOverrideSchema,
  type AutobetMode,
  type EffectiveRules,
  type ResponsibleGaming,
  type RulesOverride,
} from './responsible-gaming.js';
