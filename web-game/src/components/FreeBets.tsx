/**
 * Free bets (docs/free-bets.md): "N free bets left" for the game on screen, and a button that
 * uses one. Self-contained: it reads GET /api/sessions/{sessionId}/free-bets, plays a settled
 * game's free bet with the campaign's amount and params (or the game's defaults when the campaign
 * set none), and starts a free Mines round, after which `onRoundOpened` lets the page show it.
 * Renders nothing when the player has no free bet for this game.
 */
import { useCallback, useEffect, useState } from 'react';
import type { FreeBetAnswer } from '../app/contract';
import { useGameEnv } from '../app/env';
import { api, newKey, type Json } from '../lib/api';
import { fromApi, toJsonNumber } from '../lib/money';
import { describeError } from '../games/common';

type FreeBet = FreeBetAnswer;

/** Params of a free bet when the campaign set none (the games' own defaults where they have them). */
const DEFAULT_PARAMS: Record<string, Json> = {
  dice: { target: 50.5, direction: 'over' },
  limbo: { target: 2 },
  plinko: {},
  keno: { picks: [3, 7, 12, 21, 34] },
  mines: {},
};

export function FreeBets({ onRoundOpened }: { onRoundOpened?: () => void }) {
  const env = useGameEnv();
  const [freeBets, setFreeBets] = useState<FreeBet[]>([]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const sessionId = env.session.sessionId;

  const load = useCallback(async () => {
    try {
      const j = await api.get(`/api/sessions/${encodeURIComponent(sessionId)}/free-bets`);
      setFreeBets(((j.freeBets ?? []) as FreeBet[]).filter((f) => f.remaining > 0));
    } catch {
      setFreeBets([]);
    }
  }, [sessionId]);

  useEffect(() => {
    void load();
  }, [load]);

  const mine = freeBets.filter((f) => f.gameType === env.game);
  const first = mine[0];
  if (!first) return null;
  const left = mine.reduce((n, f) => n + f.remaining, 0);
  const amount = fromApi(first.amount, env.config.decimals);

  const use = async () => {
    if (busy || env.locked) return;
    setBusy(true);
    setMessage(null);
    try {
      const params = Object.keys(first.params).length > 0 ? first.params : (DEFAULT_PARAMS[env.game] ?? {});
      const common = { sessionId, amount: toJsonNumber(amount, env.config.decimals), idempotencyKey: newKey(), freeBetCampaignId: first.campaignId };
      if (env.game === 'mines') {
        await env.track(() => api.post('/api/mines/rounds', { ...common, params }, { idempotent: true }));
        onRoundOpened?.();
      } else {
        const j = await env.track(() => api.post('/api/bets', { ...common, gameType: env.game, params }, { idempotent: true }));
        const r = env.round(j);
        env.showBalance(r.balance);
        setMessage(r.bet.payout > 0n ? `Free bet paid ${env.money(r.bet.payout)}` : 'Free bet: no win this time');
      }
    } catch (err) {
      setMessage(describeError(err));
    } finally {
      setBusy(false);
      await load();
    }
  };

  return (
    <div
      className="gp-free-bets"
      data-testid="free-bets"
      role="region"
      aria-label="Free bets"
      style={{ display: 'flex', alignItems: 'center', gap: '0.75rem', padding: '0.4rem 0.75rem', flexWrap: 'wrap' }}
    >
      <span data-testid="free-bets-left" data-left={left}>
        {left === 1 ? '1 free bet left' : `${left} free bets left`} · {env.money(amount)}
      </span>
      <button
        type="button"
        className="gp-bet-btn is-primary"
        style={{ width: 'auto', padding: '0.35rem 0.9rem' }}
        onClick={() => void use()}
        disabled={busy || env.locked}
        data-testid="free-bet-use"
        aria-busy={busy || undefined}
      >
        {busy ? 'Playing…' : 'Use a free bet'}
      </button>
      {message && (
        <span role="status" data-testid="free-bet-message">
          {message}
        </span>
      )}
    </div>
  );
}
