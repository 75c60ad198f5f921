/**
 * The in-browser check of a prize drop (issue 30, docs/promotions.md "Verifying a prize drop"):
 * it reads the drop's public proof (GET /api/promotions/{promoId}/proof) and, once the seed is
 * revealed, recomputes every award with @gp/game-core's `verifyPrizeDrop` — the code the server
 * draws with — so the player need not trust the server's list. Before the end it shows the
 * committed hash.
 */
import { useEffect, useState } from 'react';
import { verifyPrizeDrop } from '@gp/game-core/fairness';
import { api } from '../lib/api';
import { t } from '../i18n';

interface Proof {
  serverSeed: string | null;
  serverSeedHash: string;
  oneIn: number;
  prizes: unknown[];
  entries: { seq: number; ticket: string }[];
  awards: { prize: number; seq: number; ticket: string }[];
}

type State =
  | { kind: 'loading' }
  | { kind: 'failed' }
  | { kind: 'secret'; hash: string; entries: number }
  | { kind: 'checked'; ok: boolean; problems: string[]; awards: number; entries: number; seed: string };

export function DropCheck({ promoId }: { promoId: string }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    api
      .get(`/api/promotions/${encodeURIComponent(promoId)}/proof`)
      .then((j) => {
        const p = j as unknown as Proof;
        if (!live) return;
        if (!p.serverSeed) return setState({ kind: 'secret', hash: p.serverSeedHash, entries: p.entries.length });
        const v = verifyPrizeDrop({
          serverSeed: p.serverSeed,
          serverSeedHash: p.serverSeedHash,
          oneIn: p.oneIn,
          prizeCount: p.prizes.length,
          entries: p.entries,
          awards: p.awards,
        });
        setState({ kind: 'checked', ok: v.ok, problems: v.problems, awards: v.awards.length, entries: p.entries.length, seed: p.serverSeed });
      })
      .catch(() => live && setState({ kind: 'failed' }));
    return () => {
      live = false;
    };
  }, [promoId]);

  if (state.kind === 'loading')
    return (
      <p className="gp-promo-meta" role="status">
        {t('app.loading')}
      </p>
    );
  if (state.kind === 'failed')
    return (
      <p className="gp-promo-meta is-error" role="alert">
        {t('errors.UNKNOWN')}
      </p>
    );
  if (state.kind === 'secret') {
    return (
      <div className="gp-promo-check" data-testid="drop-check" data-state="secret">
        <p>{t('promo.check.secret', { entries: state.entries })}</p>
        <code className="gp-break">{state.hash}</code>
      </div>
    );
  }
  return (
    <div className="gp-promo-check" data-testid="drop-check" data-state={state.ok ? 'verified' : 'mismatch'}>
      <p className={`gp-badge ${state.ok ? 'is-ok' : 'is-bad'}`} data-testid={state.ok ? 'drop-verified' : 'drop-mismatch'}>
        {state.ok
          ? t('promo.check.verified', { awards: state.awards, entries: state.entries })
          : t('promo.check.mismatch', { problem: state.problems.join('; ') })}
      </p>
      <p className="gp-promo-meta">
        {t('promo.check.seed')} <code className="gp-break">{state.seed}</code>
      </p>
    </div>
  );
}
