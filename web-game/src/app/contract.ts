/**
 * The provider's answers as the page receives them: types generated from /openapi.json
 * (services/provider/api/openapi-types.ts, `@gp/api-types`; issue 24 item 4). The readers in
 * types.ts take these, so an answer that changes breaks this page's build, not the page.
 */
import type { components, operations } from '@gp/api-types';

type Schemas = components['schemas'];
export type ConfigAnswer = Schemas['OperatorConfig'];
export type SessionAnswer = Schemas['Session'];
export type RoundWire = Schemas['Round'];
export type RoundStatus = Schemas['RoundStatus'];
export type ErrorCode = Schemas['ErrorCode'];
/** The session's effective responsible-gaming rules (issue 27). */
export type RulesAnswer = SessionAnswer['rules'];

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON answer of an operation (its 200, else its 201). */
export type Answer<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R }
  ? JsonOf<R>
  : operations[Op]['responses'] extends { 201: infer R }
    ? JsonOf<R>
    : never;
/** A round of My bets (GET /api/player/bets): the round answer without the callback audit and balance. */
export type PlayerBet = Answer<'listPlayerBets'>['bets'][number];
/** A free bet of the session (GET /api/sessions/{sessionId}/free-bets). */
export type FreeBetAnswer = Answer<'getSessionFreeBets'>['freeBets'][number];
