/**
 * The Blackjack `result` object of CONTRACT.md §12 in its two views: while the round is active
 * the player's view (the dealer shows only the up card and its value; no outcomes, no cards
 * stream); once final, everything (dealer's cards, outcomes and payouts, insurance payout and
 * the 52 cards). Amounts go through `toAmount` (minor units → what the JSON answer carries,
 * e.g. `(m) => minorToNumber(m, decimals)`).
 */
import { handValue } from './blackjack-cards.js';
import { availableActions, isFinal, settlement, withdrawnActions } from './blackjack.js';
import type { BlackjackState, HandOutcome, HandStatus, PublicBlackjackAction } from './blackjack.js';

export interface BlackjackHandView<A> {
  cards: string[];
  value: number;
  soft: boolean;
  bet: A;
  doubled: boolean;
  status: HandStatus;
  /** final only */
  outcome?: HandOutcome;
  /** final only */
  payout?: A;
}

export interface BlackjackResultView<A> {
  dealer: { cards: string[]; value: number; soft: boolean };
  hands: BlackjackHandView<A>[];
  activeHand: number | null;
  insurance: { offered: boolean; taken: boolean | null; amount: A; payout: A };
  actions: PublicBlackjackAction[];
  /** paid actions the rules allow now but withdrawn because their extra debit failed (only when any) */
  withdrawnActions?: PublicBlackjackAction[];
  /** the full 52-card stream, final only */
  cards?: string[];
}

export function blackjackResultView<A>(s: BlackjackState, toAmount: (minor: bigint) => A): BlackjackResultView<A> {
  const final = isFinal(s);
  const settled = final ? settlement(s) : null;
  const dealerCards = final ? [...s.dealer] : s.dealer.slice(0, 1);
  const view: BlackjackResultView<A> = {
    dealer: { cards: dealerCards, ...handValue(dealerCards) },
    hands: s.hands.map((h, i) => {
      const hv: BlackjackHandView<A> = {
        cards: [...h.cards],
        ...handValue(h.cards),
        bet: toAmount(BigInt(h.bet)),
        doubled: h.doubled,
        status: h.status,
      };
      const hs = settled?.hands[i];
      if (hs) {
        hv.outcome = hs.outcome;
        hv.payout = toAmount(hs.payout);
      }
      return hv;
    }),
    activeHand: s.activeHand,
    insurance: {
      offered: s.insurance.offered,
      taken: s.insurance.taken,
      amount: toAmount(BigInt(s.insurance.amount)),
      payout: toAmount(settled ? settled.insurancePayout : 0n),
    },
    actions: availableActions(s),
  };
  const withdrawn = withdrawnActions(s);
  if (withdrawn.length > 0) view.withdrawnActions = withdrawn;
  if (final) view.cards = [...s.deck];
  return view;
}
