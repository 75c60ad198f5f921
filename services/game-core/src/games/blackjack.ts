/**
 * Blackjack engine (SPEC.md endpoint rule 7, CONTRACT.md §10, §13): unlimited decks, blackjack
 * pays 3:2, insurance 2:1, split once on equal ranks, split aces take one card each and stand,
 * double on any first two cards (split hands too, not split aces), dealer peeks on an Ace or
 * ten-value up card and stands on soft 17.
 *
 * Pure: the 52 cards come from the round's floats at the start (deal order 0, 1 player; 2 up;
 * 3 hole; then 4, 5, ... as needed, the player's cards first, the dealer's draws last). The state
 * is a plain JSON object (stakes as decimal strings of minor units) so it can live in jsonb.
 * An action that costs money is two steps for the caller: `requiredDebit(state, action)` names the
 * extra debit, the caller takes it from the wallet, then `applyBlackjackAction` commits.
 *
 * Rounding: a blackjack pays bet + floor(3 × bet / 2) (the 3:2 win rounded down to the minor
 * unit); insurance costs floor(bet / 2), offered only when that is at least 1 minor unit, and a won
 * insurance returns 3 × its stake (stake + 2:1). A win pays 2 × the hand's stake, a push returns it.
 */
import { RuleError } from '../errors.js';
import { BLACKJACK_FLOATS, cardFromFloat, handValue, isAce, isTenValue, isTwoCard21, rankOf } from './blackjack-cards.js';

export type HandStatus = 'playing' | 'stood' | 'bust';
export type HandOutcome = 'win' | 'lose' | 'push' | 'blackjack';
/** `insurance` takes it, `decline_insurance` declines it (HTTP: takeInsurance true / false). */
export const BLACKJACK_ACTIONS = ['hit', 'stand', 'double', 'split', 'insurance', 'decline_insurance'] as const;
export type BlackjackAction = (typeof BLACKJACK_ACTIONS)[number];
/** The insurance request's `takeInsurance` as an action. */
export function insuranceAction(take: boolean): BlackjackAction {
  return take ? 'insurance' : 'decline_insurance';
}
/** The actions a player view lists (CONTRACT.md §12). */
export type PublicBlackjackAction = 'hit' | 'stand' | 'double' | 'split' | 'insurance';

export interface BlackjackHandState {
  cards: string[];
  /** the hand's stake in minor units, doubled when doubled */
  bet: string;
  doubled: boolean;
  status: HandStatus;
}

export interface BlackjackState {
  version: 1;
  /** the 52 cards of the round; secret until final */
  deck: string[];
  /** index in deck of the next card to deal */
  next: number;
  /** the starting stake in minor units */
  baseBet: string;
  /** up card, hole card, then the dealer's draws */
  dealer: string[];
  hands: BlackjackHandState[];
  split: boolean;
  activeHand: number | null;
  phase: 'insurance' | 'player' | 'final';
  insurance: { offered: boolean; taken: boolean | null; amount: string };
  /**
   * Paid actions withdrawn from the round because their extra debit was refused or rolled back
   * (`insurance`, `split`, `double:<hand>`): its wallet key (CONTRACT.md §11) is spent, so the
   * action cannot be taken again. Absent when none.
   */
  withdrawn?: string[];
}

export interface ExtraDebit {
  kind: 'insurance' | 'double' | 'split';
  /** the doubled hand (index from 0), for `double` */
  hand?: number;
  amount: bigint;
}

export interface HandSettlement {
  outcome: HandOutcome;
  payout: bigint;
}

export interface BlackjackSettlement {
  hands: HandSettlement[];
  insurancePayout: bigint;
  totalPayout: bigint;
  /** every debit together: hands' stakes and insurance */
  totalStaked: bigint;
  /** totalPayout ÷ totalStaked floored to 4 decimals (CONTRACT.md §13) */
  multiplier4: bigint;
  won: boolean;
}

/** Largest payout ÷ starting stake: split and double both hands, both win (4 stakes × 2). */
export const BLACKJACK_MAX_MULTIPLIER4 = 80_000n;

export function blackjackFloatsNeeded(): number {
  return BLACKJACK_FLOATS;
}

// ---- state helpers -------------------------------------------------------------------------

function clone(s: BlackjackState): BlackjackState {
  return {
    ...s,
    dealer: [...s.dealer],
    hands: s.hands.map((h) => ({ ...h, cards: [...h.cards] })),
    insurance: { ...s.insurance },
    ...(s.withdrawn ? { withdrawn: [...s.withdrawn] } : {}),
  };
}

function draw(s: BlackjackState): string {
  const card = s.deck[s.next];
  if (card === undefined) throw new Error('blackjack deck exhausted');
  s.next += 1;
  return card;
}

function hand(s: BlackjackState, i: number): BlackjackHandState {
  const h = s.hands[i];
  if (!h) throw new Error(`no hand ${i}`);
  return h;
}

function upCard(s: BlackjackState): string {
  const c = s.dealer[0];
  if (c === undefined) throw new Error('no dealer up card');
  return c;
}

export function dealerHasBlackjack(s: BlackjackState): boolean {
  return isTwoCard21(s.dealer.slice(0, 2));
}

export function playerHasBlackjack(s: BlackjackState): boolean {
  return !s.split && isTwoCard21(hand(s, 0).cards);
}

function isSplitAces(s: BlackjackState): boolean {
  return s.split && isAce(hand(s, 0).cards[0] ?? '');
}

function finish(s: BlackjackState): void {
  s.phase = 'final';
  s.activeHand = null;
}

/** Dealer's turn: nothing to draw when every hand is bust, else draw to 17, stand on soft 17. */
function dealerPlays(s: BlackjackState): void {
  if (s.hands.some((h) => h.status !== 'bust')) {
    while (handValue(s.dealer).value < 17) s.dealer.push(draw(s));
  }
  finish(s);
}

/**
 * Moves play to the first hand from `from` still playing; a split hand takes its second card
 * when its turn comes and stands at once when it is a split ace or 21. No hand left: the dealer.
 */
function playFrom(s: BlackjackState, from: number): void {
  for (let i = from; i < s.hands.length; i += 1) {
    const h = hand(s, i);
    if (h.cards.length === 1) h.cards.push(draw(s));
    if (h.status === 'playing' && (isSplitAces(s) || handValue(h.cards).value >= 21)) {
      h.status = handValue(h.cards).value > 21 ? 'bust' : 'stood';
    }
    if (h.status === 'playing') {
      s.activeHand = i;
      return;
    }
  }
  dealerPlays(s);
}

/** After the insurance decision (or none): the dealer's peek, then the player's blackjack. */
function afterInsurance(s: BlackjackState): void {
  const up = upCard(s);
  if ((isAce(up) || isTenValue(up)) && dealerHasBlackjack(s)) {
    for (const h of s.hands) h.status = 'stood';
    finish(s);
  } else if (playerHasBlackjack(s)) {
    hand(s, 0).status = 'stood';
    finish(s);
  } else {
    s.phase = 'player';
    playFrom(s, 0);
  }
}

// ---- public API ----------------------------------------------------------------------------

/** Deals a round from its 52 floats and a starting stake (minor units, > 0). */
export function startBlackjack(floats: readonly number[], betMinor: bigint): BlackjackState {
  if (floats.length < BLACKJACK_FLOATS) throw new RangeError(`blackjack needs ${BLACKJACK_FLOATS} floats`);
  if (betMinor <= 0n) throw new RangeError('the stake must be positive');
  const deck = floats.slice(0, BLACKJACK_FLOATS).map(cardFromFloat);
  const s: BlackjackState = {
    version: 1,
    deck,
    next: 4,
    baseBet: betMinor.toString(),
    dealer: [deck[2] as string, deck[3] as string],
    hands: [{ cards: [deck[0] as string, deck[1] as string], bet: betMinor.toString(), doubled: false, status: 'playing' }],
    split: false,
    activeHand: 0,
    phase: 'insurance',
    insurance: { offered: false, taken: null, amount: '0' },
  };
  if (isAce(upCard(s)) && betMinor / 2n >= 1n) {
    s.insurance.offered = true;
    return s;
  }
  afterInsurance(s);
  return s;
}

export function isFinal(s: BlackjackState): boolean {
  return s.phase === 'final';
}

/** The wallet tag of the extra debit an action takes (`double:<hand>`), null for a free action. */
function debitTag(s: BlackjackState, action: BlackjackAction): string | null {
  if (action === 'insurance' || action === 'split') return action;
  if (action === 'double') return `double:${s.activeHand ?? 0}`;
  return null;
}

/** The rule's actions now, before any withdrawal. */
function ruleActions(s: BlackjackState): BlackjackAction[] {
  if (s.phase === 'insurance') return ['insurance', 'decline_insurance'];
  if (s.phase !== 'player' || s.activeHand === null) return [];
  const h = hand(s, s.activeHand);
  const actions: BlackjackAction[] = ['hit', 'stand'];
  if (h.cards.length === 2) actions.push('double');
  if (!s.split && h.cards.length === 2 && rankOf(h.cards[0] ?? '') === rankOf(h.cards[1] ?? '')) actions.push('split');
  return actions;
}

const isWithdrawn = (s: BlackjackState, action: BlackjackAction) => {
  const tag = debitTag(s, action);
  return tag !== null && (s.withdrawn ?? []).includes(tag);
};

/** Every action legal now, `decline_insurance` included, without the withdrawn ones. */
export function legalActions(s: BlackjackState): BlackjackAction[] {
  return ruleActions(s).filter((a) => !isWithdrawn(s, a));
}

/**
 * The actions the player view lists. While insurance is offered only `insurance` (the decision:
 * take or decline; declining stays possible when taking was withdrawn).
 */
export function availableActions(s: BlackjackState): PublicBlackjackAction[] {
  if (s.phase === 'insurance') return ['insurance'];
  return legalActions(s).filter((a): a is PublicBlackjackAction => a !== 'decline_insurance');
}

/** Paid actions the rules allow now but the round withdrew (their extra debit failed). */
export function withdrawnActions(s: BlackjackState): PublicBlackjackAction[] {
  return ruleActions(s).filter((a): a is PublicBlackjackAction => a !== 'decline_insurance' && isWithdrawn(s, a));
}

/**
 * The state once the extra debit of an action was refused or rolled back: the action is withdrawn
 * (its wallet key is spent); nothing else changes.
 */
export function withdrawExtraDebit(s: BlackjackState, debit: Pick<ExtraDebit, 'kind' | 'hand'>): BlackjackState {
  const tag = debit.kind === 'double' ? `double:${debit.hand ?? 0}` : debit.kind;
  const withdrawn = s.withdrawn ?? [];
  return withdrawn.includes(tag) ? s : { ...clone(s), withdrawn: [...withdrawn, tag] };
}

/** The extra debit the action needs (null for none); ACTION_NOT_AVAILABLE when illegal now. */
export function requiredDebit(s: BlackjackState, action: BlackjackAction): ExtraDebit | null {
  if (!legalActions(s).includes(action)) throw new RuleError('ACTION_NOT_AVAILABLE', `${action} is not available now`);
  const base = BigInt(s.baseBet);
  switch (action) {
    case 'insurance':
      return { kind: 'insurance', amount: base / 2n };
    case 'double':
      return { kind: 'double', hand: s.activeHand ?? 0, amount: BigInt(hand(s, s.activeHand ?? 0).bet) };
    case 'split':
      return { kind: 'split', amount: base };
    default:
      return null;
  }
}

/**
 * Applies a legal action and returns the new state (the input is not modified) with the extra
 * debit it took, if any. Throws ACTION_NOT_AVAILABLE for an illegal action.
 */
export function applyBlackjackAction(state: BlackjackState, action: BlackjackAction): { state: BlackjackState; extraDebit?: ExtraDebit } {
  const extraDebit = requiredDebit(state, action);
  const s = clone(state);
  if (action === 'insurance' || action === 'decline_insurance') {
    s.insurance.taken = action === 'insurance';
    if (extraDebit) s.insurance.amount = extraDebit.amount.toString();
    afterInsurance(s);
  } else {
    const i = s.activeHand ?? 0;
    const h = hand(s, i);
    if (action === 'split') {
      const [first, second] = h.cards as [string, string];
      s.split = true;
      s.hands = [
        { ...h, cards: [first] },
        { ...h, cards: [second] },
      ];
      playFrom(s, 0);
    } else {
      if (action === 'double') {
        h.bet = (BigInt(h.bet) * 2n).toString();
        h.doubled = true;
      }
      if (action !== 'stand') h.cards.push(draw(s));
      const { value } = handValue(h.cards);
      if (value > 21) h.status = 'bust';
      else if (action !== 'hit' || value === 21) h.status = 'stood';
      playFrom(s, h.status === 'playing' ? i : i + 1);
    }
  }
  return extraDebit ? { state: s, extraDebit } : { state: s };
}

/** Outcomes and payouts of a final round. */
export function settlement(s: BlackjackState): BlackjackSettlement {
  if (!isFinal(s)) throw new Error('the round is not final');
  const dealerBj = dealerHasBlackjack(s);
  const playerBj = playerHasBlackjack(s);
  const dealer = handValue(s.dealer).value;
  const hands = s.hands.map((h): HandSettlement => {
    const bet = BigInt(h.bet);
    const value = handValue(h.cards).value;
    if (dealerBj) return playerBj ? { outcome: 'push', payout: bet } : { outcome: 'lose', payout: 0n };
    if (playerBj) return { outcome: 'blackjack', payout: bet + (bet * 3n) / 2n };
    if (h.status === 'bust') return { outcome: 'lose', payout: 0n };
    if (dealer > 21 || value > dealer) return { outcome: 'win', payout: bet * 2n };
    if (value === dealer) return { outcome: 'push', payout: bet };
    return { outcome: 'lose', payout: 0n };
  });
  const insuranceStake = BigInt(s.insurance.amount);
  const insurancePayout = s.insurance.taken && dealerBj ? insuranceStake * 3n : 0n;
  const totalPayout = hands.reduce((a, h) => a + h.payout, insurancePayout);
  const totalStaked = s.hands.reduce((a, h) => a + BigInt(h.bet), insuranceStake);
  return {
    hands,
    insurancePayout,
    totalPayout,
    totalStaked,
    multiplier4: (totalPayout * 10_000n) / totalStaked,
    won: totalPayout > totalStaked,
  };
}

/** Every debit of the round so far (starting stake, split, doubles, insurance). */
export function totalStaked(s: BlackjackState): bigint {
  return s.hands.reduce((a, h) => a + BigInt(h.bet), BigInt(s.insurance.amount));
}
