/**
 * The provider's answers as the page receives them: types generated from /openapi.json
 * (services/provider/api/openapi-types.ts, `@gp/api-types`; issue 24 item 4). The readers in
 * types.ts take these, so an answer that changes breaks this page's build, not the page.
 */
import type { components } from '@gp/api-types';

type Schemas = components['schemas'];
export type ConfigAnswer = Schemas['OperatorConfig'];
export type SessionAnswer = Schemas['Session'];
export type RoundWire = Schemas['Round'];
export type RoundStatus = Schemas['RoundStatus'];
export type ErrorCode = Schemas['ErrorCode'];
/** The session's effective responsible-gaming rules (issue 27). */
export type RulesAnswer = SessionAnswer['rules'];
