/**
 * Blackjack (SPEC.md endpoint rules 6–7, CONTRACT.md §10, §12, §13): the dealer's and the player's
 * hands; hit, stand, double, split and insurance buttons shown only when the round lists them;
 * split hands side by side; the hole card turned at settlement, the dealer's draws dealt after it.
 * An open round of the player is shown and continued when the game opens.
 */
import { useEffect, useRef, useState } from 'react';
import { LosslessNumber } from 'lossless-json';
import { useGameEnv } from '../app/env';
import type { RoundAnswer } from '../app/types';
import { BetAmount } from '../components/BetAmount';
import { PlayingCard } from '../components/PlayingCard';
import { t } from '../i18n';
import { api, newKey } from '../lib/api';
import { toDecimalText } from '../lib/money';
import { BetButton, GameLayout, NoticeLine, reducedMotion, sleep, useAction, useCanBet } from './common';

interface Hand {
  cards: string[];
  value: number;
  soft: boolean;
  bet: unknown;
  doubled: boolean;
  status: string;
  outcome?: string;
  payout?: unknown;
}
interface Dealer {
  cards: string[];
  value: number;
  soft: boolean;
}

type Action = 'hit' | 'stand' | 'double' | 'split';
const DEAL_MS = 260;
/** split, both hands doubled and won: the largest payout a deal can reach (game-core BLACKJACK_MAX_MULTIPLIER4) */
const BLACKJACK_MAX_MULTIPLIER = 8;

/** A hand's value: "Blackjack" for a two-card 21 (never "soft 21"), "soft 17", or the number. */
function Value({ value, soft, testId, cards, split }: { value: number; soft: boolean; testId: string; cards: number; split?: boolean }) {
  const natural = value === 21 && cards === 2 && !split;
  return (
    <span className="gp-hand-value" data-testid={testId}>
      {natural ? t('blackjack.outcome.blackjack') : soft && value <= 21 ? t('blackjack.soft', { value }) : value}
    </span>
  );
}

export function Blackjack() {
  const env = useGameEnv();
  const { busy, run, notice, setNotice, mounted } = useAction();
  const canDeal = useCanBet(busy, BLACKJACK_MAX_MULTIPLIER);
  const [round, setRound] = useState<RoundAnswer | null>(null);
  /** how many dealer cards are shown (the draws after the hole card come one by one) */
  const [dealerShown, setDealerShown] = useState(0);
  const prevActive = useRef(false);
  const base = '/api/blackjack/rounds';
  const active = round?.roundStatus === 'active';

  const show = async (r: RoundAnswer) => {
    const wasActive = prevActive.current;
    prevActive.current = r.roundStatus === 'active';
    const dealer = (r.result.dealer as Dealer | undefined)?.cards ?? [];
    setRound(r);
    if (r.roundStatus === 'active') {
      setDealerShown(dealer.length);
      env.showBalance(r.balance);
      return;
    }
    // Final: turn the hole card, then deal the dealer's draws one by one, then the outcome.
    const fast = reducedMotion();
    setDealerShown(Math.min(2, dealer.length));
    for (let n = 3; n <= dealer.length; n++) {
      await sleep(fast ? 0 : wasActive ? DEAL_MS * 2 : DEAL_MS);
      if (!mounted.current) return;
      setDealerShown(n);
    }
    await sleep(fast ? 0 : 350);
    if (!mounted.current) return;
    env.showBalance(r.balance);
    const payout = r.bet.payout;
    setNotice(
      payout > r.bet.totalStaked
        ? { kind: 'win', text: t('bet.win', { amount: env.money(payout) }) }
        : payout === r.bet.totalStaked && payout > 0n
          ? { kind: 'info', text: t('bet.push') }
          : { kind: payout > 0n ? 'info' : 'loss', text: payout > 0n ? t('blackjack.totalPayout', { amount: env.money(payout) }) : t('bet.loss') },
    );
  };

  useEffect(() => {
    void run(async () => {
      const j = await api.get(`${base}/active?sessionId=${encodeURIComponent(env.session.sessionId)}`);
      if (!mounted.current || !j.round) return;
      const r = env.round(j.round as Record<string, unknown>);
      env.setStake(r.bet.amount);
      await show(r);
      setNotice({ kind: 'info', text: t('blackjack.resumed') });
    });
    // once per session
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const deal = () =>
    run(async () => {
      prevActive.current = false;
      const j = await api.post(
        base,
        {
          sessionId: env.session.sessionId,
          amount: new LosslessNumber(toDecimalText(env.stake!, env.config.decimals)),
          idempotencyKey: newKey(),
          ...env.seedField(),
        },
        { idempotent: true },
      );
      await show(env.round(j));
    });

  const act = (action: Action | 'insurance' | 'decline') =>
    run(async () => {
      if (!round) return;
      const key = newKey();
      const j =
        action === 'insurance' || action === 'decline'
          ? await api.post(
              `${base}/${round.roundId}/insurance`,
              { sessionId: env.session.sessionId, idempotencyKey: key, takeInsurance: action === 'insurance' },
              { idempotent: true },
            )
          : await api.post(`${base}/${round.roundId}/${action}`, { sessionId: env.session.sessionId, idempotencyKey: key }, { idempotent: true });
      await show(env.round(j));
    });

  const result = round?.result ?? {};
  const dealer = result.dealer as Dealer | undefined;
  const hands = (result.hands as Hand[] | undefined) ?? [];
  const actions = (result.actions as string[] | undefined) ?? [];
  const actionsDisabled = busy || env.locked;
  const activeHand = result.activeHand as number | null | undefined;
  const dealerCards: (string | null)[] = dealer ? (active ? [...dealer.cards, null] : dealer.cards.slice(0, dealerShown)) : [];
  const dealerDone = !active && dealer && dealerShown >= dealer.cards.length;
  const insuranceOffered = actions.includes('insurance');
  const insuranceCost = round ? round.bet.amount / 2n : 0n; // half the bet, rounded down to the currency

  const stage = (
    <div className="gp-bj" data-testid="blackjack-table" data-status={round?.roundStatus ?? 'none'}>
      <div className="gp-bj-row gp-bj-dealer">
        <div className="gp-bj-label">
          {t('blackjack.dealer')}
          {dealer &&
            (active || dealerDone ? <Value value={dealer.value} soft={dealer.soft} testId="dealer-value" cards={active ? 1 : dealer.cards.length} /> : null)}
        </div>
        <div className="gp-cards" data-testid="dealer-cards">
          {dealerCards.length === 0 ? (
            <div className="gp-card is-slot" aria-hidden="true" />
          ) : (
            dealerCards.map((c, i) => <PlayingCard key={i} code={c} flip={i === 1 && !active} delayMs={active ? i * 120 : 0} testId={`dealer-card-${i}`} />)
          )}
        </div>
      </div>
      <p className="gp-bj-rules">{t('blackjack.rules')}</p>
      <div className={`gp-bj-row gp-bj-hands${hands.length > 1 ? ' is-split' : ''}`}>
        {hands.length === 0 ? (
          <div className="gp-bj-hand">
            <div className="gp-cards">
              <div className="gp-card is-slot" aria-hidden="true" />
            </div>
            <div className="gp-bj-label">{t('blackjack.you')}</div>
          </div>
        ) : (
          hands.map((h, i) => (
            <div
              key={i}
              className={`gp-bj-hand${active && activeHand === i ? ' is-active' : ''}${h.outcome && dealerDone ? ` is-${h.outcome}` : ''}`}
              data-testid={`hand-${i}`}
              data-outcome={dealerDone ? (h.outcome ?? '') : ''}
            >
              <div className="gp-cards">
                {h.cards.map((c, k) => (
                  <PlayingCard key={k} code={c} delayMs={k < 2 ? k * 150 : 0} testId={`hand-${i}-card-${k}`} />
                ))}
              </div>
              <div className="gp-bj-label">
                {hands.length > 1 ? t('blackjack.hand', { n: i + 1 }) : t('blackjack.you')}
                <Value value={h.value} soft={h.soft} testId={`hand-${i}-value`} cards={h.cards.length} split={hands.length > 1} />
                {h.doubled && <span className="gp-tag">2×</span>}
                {h.outcome && dealerDone && <span className={`gp-tag is-${h.outcome}`}>{t(`blackjack.outcome.${h.outcome}`)}</span>}
              </div>
            </div>
          ))
        )}
      </div>
    </div>
  );

  const actionButtons: { id: Action; label: string }[] = [
    { id: 'hit', label: t('blackjack.hit') },
    { id: 'stand', label: t('blackjack.stand') },
    { id: 'double', label: t('blackjack.double') },
    { id: 'split', label: t('blackjack.split') },
  ];
  const controls = (
    <>
      <BetAmount disabled={busy || active || env.locked} maxMultiplier={BLACKJACK_MAX_MULTIPLIER} />
      {active ? (
        insuranceOffered ? (
          <div className="gp-bj-insurance" role="group" aria-label={t('blackjack.insurance')}>
            <p className="gp-hint">
              {t('blackjack.insurance')} {t('blackjack.insuranceCost', { amount: env.money(insuranceCost) })}
            </p>
            <div className="gp-btn-row">
              <button
                type="button"
                className="gp-btn gp-btn-action"
                onClick={() => void act('insurance')}
                disabled={actionsDisabled}
                data-testid="bj-insurance"
              >
                {t('blackjack.takeInsurance')}
              </button>
              <button type="button" className="gp-btn gp-btn-action" onClick={() => void act('decline')} disabled={actionsDisabled} data-testid="bj-decline">
                {t('blackjack.declineInsurance')}
              </button>
            </div>
          </div>
        ) : (
          <div className="gp-bj-actions" role="group" aria-label={t('games.blackjack')}>
            {actionButtons.map((a) =>
              actions.includes(a.id) ? (
                <button
                  key={a.id}
                  type="button"
                  className={`gp-btn gp-btn-action is-${a.id}`}
                  onClick={() => void act(a.id)}
                  disabled={actionsDisabled}
                  data-testid={`bj-${a.id}`}
                >
                  {a.label}
                </button>
              ) : (
                <span key={a.id} className="gp-btn-placeholder" aria-hidden="true" />
              ),
            )}
          </div>
        )
      ) : (
        <BetButton label={busy ? t('bet.placing') : t('blackjack.deal')} onClick={() => void deal()} disabled={!canDeal} busy={busy} />
      )}
      <NoticeLine notice={notice} />
    </>
  );
  return <GameLayout game="blackjack" stage={stage} controls={controls} />;
}
