/**
 * Mines active rounds (SPEC.md endpoint rule 5 and the Mines rows of "States and transitions";
 * CONTRACT.md §10, §12, §13). The mines are fixed by the committed seed when the round opens
 * and stay in `rounds.state` until the round is final. Money moves exactly as the spec says:
 *
 *   start    one debit (the round opens `debit_requested`, becomes `active` once it is confirmed)
 *   reveal   safe tile: the new state, no wallet movement; a mine: one credit of 0 → `busted`;
 *            the last safe tile, or a payout reaching maxPayout: cashed out (one credit)
 *   cashout  one credit of floor(amount × multiplier), capped at maxPayout → `cashed_out`
 *
 * Every step runs on the money path (money-path/) under the request's idempotency key; actions
 * run through runRoundAction (lock `round:<id>` + the round's version), so a duplicate or a
 * concurrent request on another pod never reveals, or credits, twice.
 */
import {
  cashoutMines,
  cashoutMultiplier,
  MINES_FLOATS,
  minesPayout,
  minesResultView,
  parseGameParams,
  revealTile,
  safeReveals,
  startMines,
  type MinesParams,
  type MinesState,
} from '@gp/game-core/games';
import { applyMultiplier, checkStake, MULTIPLIER_SCALE, parseAmount } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import { latestBalance } from './round-store/reads.js';
import type { SessionWithToken } from '../sessions/sessions.js';
import { runIdempotent, scopeOf, StoredAnswer, type IdempotencyScope } from './idempotency.js';
import { closeAndCredit, closeRound, debitAndActivate } from './money-path/active-round.js';
import { fundingOf } from './money-path/opening.js';
import { operatorFor, RoundBusyError } from './money-path/callbacks.js';
import { campaignForBet } from './free-bets.js';
import { minesPlayerView, minesStateOf } from './player-view.js';
import {
  advanceRound,
  openActiveRound,
  openingChecks,
  openRoundOfSessionPlayer,
  roundOfSession,
  runRoundAction,
  type AbandonedRoundHandler,
  type RoundDeps,
} from './round-actions.js';
import { getRound, type RoundWithContext } from './round-store/reads.js';
import type { Callback, Round } from './round-store/rows.js';
import { isFailed, type RoundStatus } from './round-status.js';
import { betView, betViewOf, failedRoundError, type PairView } from './round-view.js';

export type MinesAnswer = Awaited<ReturnType<typeof betView>>;

/**
 * The answer to a POST of the round as it stands (also for a key whose round moved on since its
 * answer): with the balance the casino just reported, else the player's latest reported balance
 * (CONTRACT.md §12: also when the request moved no money).
 */
async function minesAnswer(deps: RoundDeps, round: Round, balance?: bigint | null): Promise<MinesAnswer> {
  if (isFailed(round)) throw failedRoundError(round);
  const latest = balance ?? (await latestBalance(deps.db, round.operatorId, round.playerRef, round.currency));
  return betView(deps.db, round, { result: minesPlayerView(round), balance: latest });
}

/** The answer of a round whose callbacks and seed pair the caller holds (no database read). */
function minesAnswerOf(round: Round, callbacks: Callback[], pair: PairView, balance: bigint | null): MinesAnswer {
  return betViewOf(round, callbacks, pair, { result: minesPlayerView(round), balance });
}

/* ------------------------------------------------------------------------------------ start */

export interface StartMinesInput {
  sessionId: string;
  amount: string;
  idempotencyKey: string;
  mineCount?: number | undefined;
  /** The start form with params (SPEC.md): `params.mineCount`. */
  params?: Record<string, unknown> | undefined;
  clientSeed?: string | undefined;
  /** A free bet of this campaign (issue 17): no debit at start, one credit at close. */
  freeBetCampaignId?: string | undefined;
  /** A round of an autobet run (issue 27). */
  autobet?: boolean | undefined;
}

/** `mineCount` comes top-level or as `params.mineCount`; both given and different is a VALIDATION_ERROR. */
function startParams(input: StartMinesInput): MinesParams {
  const fromParams = input.params?.mineCount;
  if (input.mineCount !== undefined && fromParams !== undefined && fromParams !== input.mineCount) {
    throw new AppError('VALIDATION_ERROR', 'mineCount and params.mineCount differ');
  }
  return parseGameParams('mines', { ...input.params, ...(input.mineCount !== undefined ? { mineCount: input.mineCount } : {}) });
}

/**
 * One flow for a paid and a free Mines round (issue 17), the funding a parameter. A free round
 * takes its campaign's amount, its params as defaults under the request's; one transaction uses the
 * free bet and opens the round `active` with its mines dealt (no debit); reveal and cashout then run
 * as for any round, and the one credit at close carries `freeBet: true` and `campaignId`.
 */
export async function startMinesRound(deps: RoundDeps, input: StartMinesInput): Promise<MinesAnswer> {
  const session = await deps.sessions.get(deps.db, input.sessionId);
  const funding = fundingOf(input.freeBetCampaignId);
  let params: MinesParams;
  let amount: bigint;
  if (funding.kind === 'free-bet') {
    amount = parseAmount(input.amount, session.currency);
    const campaign = await campaignForBet(deps, session, funding.campaignId, 'mines', amount);
    const merged: Record<string, unknown> = { ...campaign.params, ...input.params };
    if (input.mineCount !== undefined && input.params?.mineCount === undefined) delete merged.mineCount;
    params = startParams({ ...input, params: merged });
  } else {
    params = startParams(input);
    amount = parseAmount(input.amount, session.currency);
  }
  const free = funding.kind === 'free-bet' ? { freeBetCampaignId: funding.campaignId } : {};
  const scope = scopeOf(session, input.idempotencyKey, { op: 'mines:start', amount, clientSeed: input.clientSeed ?? null, params, ...free });
  return runIdempotent(
    deps.db,
    {
      scope,
      waitMs: deps.config.idempotencyWaitMs,
      fromRound: (round) => minesAnswer(deps, round),
      async execute() {
        const { operator } = await openingChecks(deps, session, 'mines', { autobet: input.autobet });
        // No MAX_PAYOUT_EXCEEDED for Mines: its payout is capped at maxPayout instead (CONTRACT.md §10).
        // A free bet's amount is its campaign's, checked when the campaign was made.
        if (funding.kind === 'debit') checkStake(amount, operator);
        // One statement: the nonce, the round with its debit recorded (or the free bet used), the mines of that nonce under the committed seed, the key.
        const opened = await openActiveRound(
          deps,
          scope,
          { session, operator, amount, clientSeed: input.clientSeed, gameType: 'mines', params: { ...params } },
          { floats: MINES_FLOATS, state: (f) => startMines(f, params.mineCount) },
          funding,
        );
        if (!opened.debit) return minesAnswer(deps, opened.round); // a free bet: playable already
        // One statement: the debit's answer, the round active, the request's answer with its key.
        const pair = { serverSeedHash: opened.serverSeedHash, serverSeed: opened.serverSeed, revealed: false };
        const started = await debitAndActivate(deps, operator, opened, scope, async (active, debit, balance) =>
          minesAnswerOf(active, [debit], pair, balance ?? (await latestBalance(deps.db, active.operatorId, active.playerRef, active.currency))),
        );
        if (started) return new StoredAnswer(started.answer);
        // The retry job took the round over meanwhile (its lease ran out): answer what it became.
        return minesAnswer(deps, (await getRound(deps.db, opened.round.roundId)) ?? opened.round);
      },
    },
    deps.metrics,
  );
}

/* ---------------------------------------------------------------------------------- actions */

export interface MinesActionInput {
  sessionId: string;
  roundId: string;
  idempotencyKey: string;
}

export async function revealMinesTile(deps: RoundDeps, input: MinesActionInput & { tile: number }): Promise<MinesAnswer> {
  return runRoundAction(deps, {
    ...input,
    gameType: 'mines',
    request: { action: 'reveal', tile: input.tile },
    fromRound: (round) => minesAnswer(deps, round),
    async apply({ round, loaded, session, operator, scope }) {
      const outcome = revealTile(minesStateOf(round), input.tile, { amountMinor: round.amount, limits: operator });
      if (outcome.final) return closeMinesRound(deps, { round, operator, session, state: outcome.state }, { scope, loaded });
      // One statement: the new state at the version read, the key with its answer.
      const answer = minesAnswerOf({ ...round, state: outcome.state }, loaded.callbacks, loaded.pair, loaded.balance);
      return advanceRound(deps, round, scope, { state: outcome.state }, answer);
    },
  });
}

export async function cashoutMinesRound(deps: RoundDeps, input: MinesActionInput): Promise<MinesAnswer> {
  return runRoundAction(deps, {
    ...input,
    gameType: 'mines',
    request: { action: 'cashout' },
    fromRound: (round) => minesAnswer(deps, round),
    async apply({ round, loaded, session, operator, scope }) {
      return closeMinesRound(deps, { round, operator, session, state: cashoutMines(minesStateOf(round)) }, { scope, loaded });
    },
  });
}

/**
 * bet.multiplier and payout of a final state (CONTRACT.md §10, §12, §13): 0 and 0 when busted;
 * else the cashout multiplier of the reveals and floor(amount × it), unless that passes maxPayout:
 * then payout = maxPayout and the multiplier is the one applied, payout ÷ amount floored.
 */
function closeFigures(state: MinesState, amount: bigint, operator: OperatorWithSecret): { multiplier4: bigint; payout: bigint } {
  if (state.status === 'busted') return { multiplier4: 0n, payout: 0n };
  const multiplier4 = cashoutMultiplier(state);
  const payout = minesPayout(state, amount, operator);
  if (payout < applyMultiplier(amount, multiplier4)) return { multiplier4: (payout * MULTIPLIER_SCALE) / amount, payout };
  return { multiplier4, payout };
}

/**
 * Ends a round (cashout, a mine, the last safe tile; or the abandoned-round sweep): one statement
 * fixes the final state and records the one credit, then the credit is sent. For a player's
 * request (`request`) that statement also claims the key, and once the credit is answered one
 * statement stores its answer, the final status and the request's answer. For the sweep
 * (`request` null) it answers the final (or credit_pending) round.
 */
async function closeMinesRound(
  deps: RoundDeps,
  c: { round: Round; operator: OperatorWithSecret; session: Pick<SessionWithToken, 'launchToken'>; state: MinesState },
  request: { scope: IdempotencyScope; loaded: RoundWithContext } | null,
): Promise<MinesAnswer | StoredAnswer<MinesAnswer>> {
  const { round } = c;
  const close = {
    from: ['active'] as RoundStatus[],
    version: round.version,
    result: minesResultView(c.state),
    state: c.state,
    ...closeFigures(c.state, round.amount, c.operator),
    closeStatus: c.state.status === 'busted' ? ('busted' as const) : ('cashed_out' as const),
    launchToken: c.session.launchToken,
  };
  if (!request) {
    const closed = await closeRound(deps, c.operator, round, close);
    return minesAnswer(deps, closed.round, closed.balance);
  }
  const { loaded } = request;
  const closed = await closeAndCredit(deps, c.operator, round, close, request.scope, (final, credit, balance) =>
    minesAnswerOf(final, [...loaded.callbacks, credit], loaded.pair, balance ?? loaded.balance),
  );
  if (closed.answer !== null) return new StoredAnswer(closed.answer);
  return minesAnswer(deps, closed.round);
}

/* ---------------------------------------------------------------------------------- lookups */

export async function getMinesRound(deps: RoundDeps, sessionId: string, roundId: string): Promise<MinesAnswer> {
  const { round } = await roundOfSession(deps, sessionId, roundId, 'mines');
  return betView(deps.db, round, { result: minesPlayerView(round), audit: true });
}

/** The player's open Mines round, whichever of the player's sessions started it (CONTRACT.md §13). */
export async function activeMinesRound(deps: RoundDeps, sessionId: string): Promise<{ round: MinesAnswer | null }> {
  const round = await openRoundOfSessionPlayer(deps, sessionId, 'mines');
  return { round: round ? await betView(deps.db, round, { result: minesPlayerView(round) }) : null };
}

/* ------------------------------------------------------------------------- abandoned rounds */

/**
 * Abandoned Mines rounds, policy `cashout` (operators/operator-schema.ts): a round with at least
 * one revealed tile is cashed out for the player, exactly as their own cashout would (one credit
 * of its payout, `cashed_out`). A round with no reveal stays open (null): it has no cashout
 * (CONTRACT.md §13), and closing it as a loss would take a stake the player never played; the
 * player finds it again on the next launch (GET /api/mines/rounds/active), and the sweep looks at
 * it again only after another idle period. A player action that got there first wins: the
 * version check refuses the sweep, and the round is left to it.
 */
export const closeAbandonedMinesRound: AbandonedRoundHandler = async (deps, round, policy) => {
  if (policy.mines !== 'cashout') return null;
  const state = minesStateOf(round);
  if (state.status !== 'active') return null;
  if (safeReveals(state) === 0) return null; // kept open (the job restarts its idle clock)
  const operator = await operatorFor(deps, round.operatorId);
  const session = await deps.sessions.load(deps.db, round.sessionId);
  try {
    await closeMinesRound(deps, { round, operator, session, state: cashoutMines(state) }, null);
  } catch (err) {
    if (err instanceof RoundBusyError) return null;
    throw err;
  }
  const after = await getRound(deps.db, round.roundId);
  return after?.status === 'credit_pending' ? 'pending' : 'succeeded';
};
