/**
 * Replay for disputes (issue 12): `/game.html?replay=<roundId>` shows a stored round as the player
 * saw it — board, cards or ball path, amounts, fairness proof — read-only and without a session.
 * It reads the public GET /api/bets/{roundId} (the round id is the capability: at least 122
 * random bits, CONTRACT.md §13); the server never sends the server seed of a pair not yet
 * rotated, nor the mines or cards of a round still in play.
 */
import { useEffect, useState } from 'react';
import type { RoundWire } from '../app/contract';
import { readStoredRound, type StoredRound } from '../app/rounds';
import { RoundBoard } from '../components/RoundBoard';
import { RoundFacts } from '../components/MyBets';
import { ShieldIcon } from '../components/icons';
import { t } from '../i18n';
import { api, ApiError } from '../lib/api';

type State = { phase: 'loading' } | { phase: 'error'; kind: 'notFound' | 'invalid' | 'failed' } | { phase: 'ready'; round: StoredRound };

export function Replay({ roundId }: { roundId: string }) {
  const [state, setState] = useState<State>({ phase: 'loading' });
  useEffect(() => {
    if (roundId.length > 200) return setState({ phase: 'error', kind: 'invalid' });
    api
      .get(`/api/bets/${encodeURIComponent(roundId)}`)
      .then((j) => {
        const round = readStoredRound(j as RoundWire);
        setState(round ? { phase: 'ready', round } : { phase: 'error', kind: 'invalid' });
      })
      .catch((err: unknown) => {
        const code = err instanceof ApiError ? err.code : '';
        setState({ phase: 'error', kind: code === 'ROUND_NOT_FOUND' ? 'notFound' : code === 'VALIDATION_ERROR' ? 'invalid' : 'failed' });
      });
  }, [roundId]);

  if (state.phase === 'loading') {
    return (
      <div className="gp-loading" role="status">
        <span className="gp-spinner" aria-hidden="true" />
        {t('replay.loading')}
      </div>
    );
  }
  if (state.phase === 'error') {
    return (
      <div className="gp-screen" role="alert" data-testid="replay-error" data-kind={state.kind}>
        <div className="gp-screen-icon" aria-hidden="true">
          !
        </div>
        <h1>{t('replay.title')}</h1>
        <p>{state.kind === 'notFound' ? t('replay.notFound') : state.kind === 'invalid' ? t('replay.invalid') : t('errors.UNKNOWN')}</p>
      </div>
    );
  }
  const { round } = state;
  return (
    <div className="gp-replay" data-testid="replay" data-game={round.gameType} data-status={round.roundStatus}>
      <div className="gp-topbar">
        <div className="gp-title">
          {t('replay.title')} · {t(`games.${round.gameType}`)}
        </div>
        <div className="gp-topbar-end gp-muted gp-replay-note">
          <ShieldIcon /> {t('replay.readOnly')}
        </div>
      </div>
      <div className="gp-game gp-replay-main">
        <section className="gp-stage gp-replay-stage" aria-label={t(`games.${round.gameType}`)}>
          {round.roundStatus === 'active' && (
            <p className="gp-hint" data-testid="replay-in-play">
              {t('replay.inPlay')}
            </p>
          )}
          <RoundBoard round={round} />
        </section>
        <section className="gp-controls gp-replay-facts">
          <dl className="gp-facts">
            <dt>{t('replay.player')}</dt>
            <dd>
              <code>{round.playerRef}</code>
            </dd>
          </dl>
          <RoundFacts round={round} />
        </section>
      </div>
    </div>
  );
}
