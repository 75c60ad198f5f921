/**
 * The in-browser verifier (issue 12), loaded on demand: it recomputes rounds with
 * @gp/game-core — the very fairness and game code the server runs, one source for both — so a
 * player need not trust POST /api/verify. `VerifierForm` takes any inputs (pasted seeds from
 * elsewhere too) and shows the HMAC messages, digests and floats; `RoundProof` checks a stored
 * round and says "verified ✓" once its server seed is revealed.
 */
import { useMemo, useState } from 'react';
import { checkRound, floatsOfRound, hashServerSeed, streamSteps, verifyBet, type StreamStep } from '@gp/game-core/fairness';
import { GAME_TYPES, type GameType } from '@gp/game-core/games';
import type { StoredRound } from '../app/rounds';
import { t } from '../i18n';
import { localizeDecimal } from '../lib/format';

export interface VerifyInputs {
  gameType: GameType;
  serverSeed: string;
  serverSeedHash: string;
  clientSeed: string;
  nonce: string;
  params: string;
}

export const DEFAULT_PARAMS: Record<GameType, string> = {
  dice: '{"target": 50.5, "direction": "over"}',
  limbo: '{"target": 2}',
  plinko: '{"rows": 16, "risk": "low"}',
  keno: '{"picks": [1, 2, 3, 4, 5], "risk": "classic"}',
  mines: '{"mineCount": 3, "revealed": []}',
  blackjack: '{"actions": []}',
};

/** The verifier's inputs for a stored round (Mines: its reveals; Blackjack: its cards). */
export function inputsOfRound(r: StoredRound): VerifyInputs {
  let params: Record<string, unknown> = r.params;
  if (r.gameType === 'mines') params = { mineCount: r.params.mineCount ?? r.result?.mineCount ?? 3, revealed: r.result?.revealed ?? [] };
  if (r.gameType === 'blackjack') params = { actions: [] };
  return {
    gameType: r.gameType,
    serverSeed: r.fairness.serverSeed ?? '',
    serverSeedHash: r.fairness.serverSeedHash ?? '',
    clientSeed: r.fairness.clientSeed,
    nonce: String(r.fairness.nonce),
    params: JSON.stringify(params),
  };
}

const fmt = (v: number, digits: number) => localizeDecimal(v.toFixed(digits));
/** A long list (Blackjack's 52 cards) as its first items and its length; the full text is the cell's title. */
const short = (text: string) => {
  const items = text.split(',');
  return items.length > 10 ? `${items.slice(0, 8).join(', ')} … (${items.length})` : items.join(', ');
};

/** The outcome of a game's result in a few words. */
function outcomeText(gameType: GameType, result: Record<string, unknown>): string {
  const arr = (v: unknown) => (Array.isArray(v) ? v.join(', ') : '');
  switch (gameType) {
    case 'dice':
      return `${t('verify.what.roll')} ${fmt(Number(result.roll), 2)}`;
    case 'limbo':
      return `${t('verify.what.result')} ${fmt(Number(result.result), 2)}×`;
    case 'plinko':
      return `${t('verify.what.bin')} ${String(result.bin)} · ${t('verify.what.path')} ${arr(result.path)}`;
    case 'keno':
      return `${t('verify.what.drawn')} ${arr(result.drawn)}`;
    case 'mines':
      return `${t('verify.what.mines')} ${arr(result.mines)}`;
    case 'blackjack':
      return `${t('verify.what.cards')} ${arr(result.cards)}`;
  }
}

function Steps({ steps }: { steps: StreamStep[] }) {
  return (
    <details className="gp-steps" data-testid="verify-steps">
      <summary>{t('verify.steps')}</summary>
      <p className="gp-hint">{t('verify.stepsIntro')}</p>
      {steps.map((s) => (
        <div key={s.message} className="gp-step">
          <div className="gp-step-line">
            <span className="gp-label">{t('verify.message')}</span> <code>{s.message}</code>
          </div>
          <div className="gp-step-line">
            <span className="gp-label">{t('verify.digest')}</span>{' '}
            <code className="gp-break" data-testid="verify-digest">
              {s.digestHex}
            </code>
          </div>
          <table className="gp-float-table">
            <thead>
              <tr>
                <th>{t('verify.float')}</th>
                <th>{t('verify.bytes')}</th>
                <th>{t('verify.value')}</th>
              </tr>
            </thead>
            <tbody>
              {s.floats.map((f) => (
                <tr key={f.index} data-testid={`verify-float-${f.index}`}>
                  <td>{f.index}</td>
                  <td>
                    <code>{f.bytesHex}</code>
                  </td>
                  <td>{fmt(f.value, 12)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </details>
  );
}

type Outcome = { ok: true; hash: string; hashMatches: boolean | null; text: string; multiplier: string; steps: StreamStep[] } | { ok: false; error: string };

function compute(v: VerifyInputs): Outcome {
  let params: unknown;
  try {
    params = v.params.trim() === '' ? {} : JSON.parse(v.params);
  } catch {
    return { ok: false, error: t('verify.paramsInvalid') };
  }
  try {
    const nonce = Number(v.nonce);
    const hash = hashServerSeed(v.serverSeed);
    const out = verifyBet({
      gameType: v.gameType,
      serverSeed: v.serverSeed,
      serverSeedHash: hash,
      clientSeed: v.clientSeed,
      nonce,
      amountMinor: 100n,
      currency: 'USD',
      params,
    });
    const steps = streamSteps(v.serverSeed, v.clientSeed, nonce, floatsOfRound(v.gameType, v.gameType === 'mines' || v.gameType === 'blackjack' ? {} : params));
    const given = v.serverSeedHash.trim().toLowerCase();
    const m = out.multiplier4;
    return {
      ok: true,
      hash,
      hashMatches: given === '' ? null : given === hash,
      text: outcomeText(v.gameType, out.result as Record<string, unknown>),
      multiplier: `${localizeDecimal(`${m / 10_000n}.${(m % 10_000n).toString().padStart(4, '0')}`)}×`,
      steps,
    };
  } catch (err) {
    return { ok: false, error: t('verify.invalid', { reason: err instanceof Error ? err.message : String(err) }) };
  }
}

export function VerifierForm({ initial }: { initial?: VerifyInputs | undefined }) {
  const [v, setV] = useState<VerifyInputs>(
    initial ?? { gameType: 'dice', serverSeed: '', serverSeedHash: '', clientSeed: '', nonce: '0', params: DEFAULT_PARAMS.dice },
  );
  const [outcome, setOutcome] = useState<Outcome | null>(() => (initial?.serverSeed ? compute(initial) : null));
  const set = (patch: Partial<VerifyInputs>) => setV((old) => ({ ...old, ...patch }));
  const field = (key: 'serverSeed' | 'serverSeedHash' | 'clientSeed' | 'nonce', label: string, mode?: 'numeric') => (
    <label className="gp-field">
      <span className="gp-label">{label}</span>
      <input
        className="gp-input"
        value={v[key]}
        inputMode={mode}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => set({ [key]: e.target.value })}
        data-testid={`verify-${key}`}
      />
    </label>
  );
  return (
    <form
      className="gp-verifier"
      onSubmit={(e) => {
        e.preventDefault();
        setOutcome(compute(v));
      }}
      data-testid="verifier"
    >
      <p className="gp-muted">{t('verify.intro')}</p>
      <label className="gp-field">
        <span className="gp-label">{t('verify.game')}</span>
        <select
          className="gp-select"
          value={v.gameType}
          onChange={(e) => {
            const g = e.target.value as GameType;
            set({ gameType: g, params: DEFAULT_PARAMS[g] });
          }}
          data-testid="verify-gameType"
        >
          {GAME_TYPES.map((g) => (
            <option key={g} value={g}>
              {t(`games.${g}`)}
            </option>
          ))}
        </select>
      </label>
      {field('serverSeed', t('verify.serverSeed'))}
      {field('serverSeedHash', t('verify.serverSeedHash'))}
      {field('clientSeed', t('verify.clientSeed'))}
      {field('nonce', t('verify.nonce'), 'numeric')}
      <label className="gp-field">
        <span className="gp-label">{t('verify.params')}</span>
        <textarea
          className="gp-input gp-mono"
          rows={2}
          value={v.params}
          spellCheck={false}
          onChange={(e) => set({ params: e.target.value })}
          data-testid="verify-params"
        />
      </label>
      <button type="submit" className="gp-btn gp-btn-primary" data-testid="verify-run">
        {t('verify.run')}
      </button>
      {outcome && !outcome.ok && (
        <p className="gp-hint is-error" role="alert" data-testid="verify-error">
          {outcome.error}
        </p>
      )}
      {outcome?.ok && (
        <div className="gp-verify-out" data-testid="verify-result" role="status">
          <dl className="gp-facts">
            <dt>{t('verify.hashComputed')}</dt>
            <dd>
              <code className="gp-break" data-testid="verify-computed-hash">
                {outcome.hash}
              </code>
            </dd>
            <dt>{t('verify.outcome')}</dt>
            <dd data-testid="verify-outcome">{outcome.text}</dd>
            <dt>{t('verify.multiplier')}</dt>
            <dd data-testid="verify-multiplier">{outcome.multiplier}</dd>
          </dl>
          {outcome.hashMatches !== null && (
            <p className={`gp-badge ${outcome.hashMatches ? 'is-ok' : 'is-bad'}`} data-testid="verify-hash-status" data-ok={outcome.hashMatches}>
              {outcome.hashMatches ? `${t('verify.hashOk')} ✓` : t('verify.hashBad')}
            </p>
          )}
          <Steps steps={outcome.steps} />
        </div>
      )}
    </form>
  );
}

/** "verified ✓" for a stored round, computed here; or why not yet. */
export function RoundProof({ round }: { round: StoredRound }) {
  const check = useMemo(() => {
    const { serverSeed, serverSeedHash } = round.fairness;
    if (!serverSeed || !serverSeedHash || !round.result || round.roundStatus === 'active') return null;
    const paid = ['settled', 'cashed_out', 'busted', 'credit_pending'].includes(round.roundStatus);
    return checkRound({
      gameType: round.gameType,
      serverSeed,
      serverSeedHash,
      clientSeed: round.fairness.clientSeed,
      nonce: round.fairness.nonce,
      amountMinor: round.amount,
      currency: round.currency,
      params: round.params,
      result: round.result,
      ...(paid ? { payoutMinor: round.payout } : {}),
    });
  }, [round]);
  if (!round.fairness.serverSeed)
    return (
      <p className="gp-hint" data-testid="proof-secret">
        {t('verify.notRevealed')}
      </p>
    );
  if (!check) return null;
  return (
    <div className="gp-proof" data-testid="proof" data-verified={check.verified}>
      <p className={`gp-badge ${check.verified ? 'is-ok' : 'is-bad'}`} data-testid={check.verified ? 'proof-verified' : 'proof-mismatch'}>
        {check.verified ? t('verify.verified') : `${t('verify.mismatch')}${check.problem ? `: ${check.problem}` : ''}`}
      </p>
      {check.compared.length > 0 && (
        <table className="gp-float-table">
          <thead>
            <tr>
              <th />
              <th>{t('verify.stored')}</th>
              <th>{t('verify.recomputed')}</th>
            </tr>
          </thead>
          <tbody>
            {check.compared.map((c) => (
              <tr key={c.what} data-same={c.stored === c.recomputed}>
                <td>{t(`verify.what.${c.what}`)}</td>
                <td className="gp-break" title={c.stored}>
                  {short(c.stored)}
                </td>
                <td className="gp-break" title={c.recomputed}>
                  {short(c.recomputed)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
