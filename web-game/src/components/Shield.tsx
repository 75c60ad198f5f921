/**
 * The shield control (SPEC.md: "Provably fair details stay inside the shield control"): a button
 * in the top bar and a side panel with three tabs —
 *   Seeds:   the committed server seed hash, the client seed (editable, used from the next bet),
 *            the next nonce, rotation (shows the revealed previous seed; refused politely while a
 *            Mines or Blackjack round is open);
 *   Verify:  the in-browser verifier (verifier/Verifier.tsx, loaded when first opened);
 *   My bets: the player's rounds (GET /api/player/bets), each with its detail, proof and replay link.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { t } from '../i18n';
import { api, ApiError } from '../lib/api';
import type { PlayerBet } from '../app/contract';
import { readStoredRound, type StoredRound } from '../app/rounds';
import { describeError } from '../games/common';
import type { VerifyInputs } from '../verifier/Verifier';
import { MyBets } from './MyBets';
import { ShieldIcon } from './icons';

const VerifierForm = lazy(() => import('../verifier/Verifier').then((m) => ({ default: m.VerifierForm })));

export function ShieldButton({ open, onToggle }: { open: boolean; onToggle(): void }) {
  return (
    <button
      type="button"
      className={`gp-shield-btn${open ? ' is-open' : ''}`}
      onClick={onToggle}
      aria-expanded={open}
      aria-controls="gp-side-panel"
      aria-label={t('shield.open')}
      title={t('shield.open')}
      data-testid="shield"
    >
      <ShieldIcon />
    </button>
  );
}

export interface FairnessView {
  serverSeedHash: string;
  clientSeed: string;
  nonce: number;
  lastRoundId: string | null;
}

export interface Rotation {
  previousServerSeed: string;
  previousServerSeedHash: string;
  previousClientSeed: string;
  previousNonce: number;
}

export type ShieldTab = 'seeds' | 'verify' | 'bets';

export interface ShieldProps {
  fairness: FairnessView;
  sessionId: string;
  /** the client seed the next bet sends (null: the pair's own) */
  pendingClientSeed: string | null;
  setPendingClientSeed(seed: string | null): void;
  /** a rotation succeeded: the new pair */
  onRotated(next: { serverSeedHash: string; clientSeed: string; nonce: number }): void;
  onClose(): void;
  tab: ShieldTab;
  setTab(tab: ShieldTab): void;
}

/** CONTRACT.md §9: 1 to 64 printable characters (the server checks it too, with game-core's rule; kept here so the page's first load stays small). */
const isValidClientSeed = (v: string) => /^[^\p{C}]+$/u.test(v) && [...v].length <= 64;

const copy = (text: string) => void navigator.clipboard?.writeText(text).catch(() => undefined);

function SeedsTab({
  fairness,
  sessionId,
  pendingClientSeed,
  setPendingClientSeed,
  onRotated,
  openVerifier,
}: ShieldProps & { openVerifier(i: VerifyInputs): void }) {
  const [draft, setDraft] = useState(pendingClientSeed ?? fairness.clientSeed);
  const [saved, setSaved] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [rotation, setRotation] = useState<Rotation | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const valid = isValidClientSeed(draft);

  /**
   * The last round under the rotated pair, in the verifier with its own game, settings, client
   * seed and nonce (issue 29: it opened Dice with dice settings whatever was played). It is the
   * player's newest stored round with the pair's hash; the seed is revealed now.
   */
  const verifyLast = async (r: Rotation) => {
    const fallback: VerifyInputs = {
      gameType: 'dice',
      serverSeed: r.previousServerSeed,
      serverSeedHash: r.previousServerSeedHash,
      clientSeed: r.previousClientSeed,
      nonce: String(r.previousNonce - 1),
      params: '{"target": 50.5, "direction": "over"}',
    };
    try {
      const j = await api.get(`/api/player/bets?${new URLSearchParams({ sessionId, limit: '20' }).toString()}`);
      const rounds = (Array.isArray(j.bets) ? (j.bets as PlayerBet[]) : []).map(readStoredRound).filter((x): x is StoredRound => x !== null);
      const last = rounds.find((x) => x.fairness.serverSeedHash === r.previousServerSeedHash);
      if (!last) return openVerifier(fallback);
      const { inputsOfRound } = await import('../verifier/Verifier');
      openVerifier({ ...inputsOfRound(last), serverSeed: r.previousServerSeed });
    } catch {
      openVerifier(fallback);
    }
  };

  const rotate = async () => {
    setRotating(true);
    setProblem(null);
    try {
      const body: Record<string, unknown> = { sessionId };
      if (pendingClientSeed) body.clientSeed = pendingClientSeed;
      const j = await api.post('/api/fairness/rotate', body);
      setRotation({
        previousServerSeed: String(j.previousServerSeed),
        previousServerSeedHash: String(j.previousServerSeedHash),
        previousClientSeed: String(j.previousClientSeed),
        previousNonce: Number(j.previousNonce),
      });
      setPendingClientSeed(null);
      onRotated({ serverSeedHash: String(j.serverSeedHash), clientSeed: String(j.clientSeed), nonce: Number(j.nonce) });
      setDraft(String(j.clientSeed));
    } catch (err) {
      setProblem(err instanceof ApiError && err.code === 'ACTIVE_ROUND_EXISTS' ? t('shield.rotateRefused') : describeError(err));
    } finally {
      setRotating(false);
    }
  };

  return (
    <div className="gp-tab-body" data-testid="shield-seeds">
      <p className="gp-muted">{t('shield.intro')}</p>
      <dl className="gp-facts">
        <dt>{t('shield.serverSeedHash')}</dt>
        <dd>
          <code className="gp-break" data-testid="shield-hash">
            {fairness.serverSeedHash}
          </code>
        </dd>
        <dt>{t('shield.nonce')}</dt>
        <dd>
          <code data-testid="shield-nonce">{fairness.nonce}</code>
        </dd>
        {fairness.lastRoundId && (
          <>
            <dt>{t('shield.lastRound')}</dt>
            <dd>
              <code className="gp-break">{fairness.lastRoundId}</code>
            </dd>
          </>
        )}
      </dl>
      <form
        className="gp-field gp-seed-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!valid) return;
          setPendingClientSeed(draft === fairness.clientSeed ? null : draft);
          setSaved(true);
        }}
      >
        <label className="gp-label" htmlFor="gp-client-seed">
          {t('shield.clientSeed')}
        </label>
        <div className="gp-inline">
          <input
            id="gp-client-seed"
            className={`gp-input${valid ? '' : ' is-invalid'}`}
            value={draft}
            maxLength={256}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => {
              setDraft(e.target.value);
              setSaved(false);
            }}
            data-testid="client-seed-input"
          />
          <button type="submit" className="gp-btn" disabled={!valid} data-testid="client-seed-save">
            {t('shield.save')}
          </button>
        </div>
        <p className={`gp-hint${valid ? '' : ' is-error'}`} data-testid="client-seed-hint">
          {!valid ? t('shield.invalidClientSeed') : saved ? t('shield.saved') : t('shield.clientSeedHelp')}
        </p>
      </form>
      <div className="gp-rotate">
        <p className="gp-hint">{t('shield.rotateHelp')}</p>
        <button type="button" className="gp-btn gp-btn-secondary" onClick={() => void rotate()} disabled={rotating} data-testid="rotate">
          {rotating ? t('shield.rotating') : t('shield.rotate')}
        </button>
        {problem && (
          <p className="gp-hint is-error" role="alert" data-testid="rotate-problem">
            {problem}
          </p>
        )}
        {rotation && (
          <div className="gp-rotation" data-testid="rotation" role="status">
            <p className="gp-badge is-ok">{t('shield.rotated')}</p>
            <dl className="gp-facts">
              <dt>{t('shield.previousSeed')}</dt>
              <dd className="gp-copy-row">
                <code className="gp-break" data-testid="previous-seed">
                  {rotation.previousServerSeed}
                </code>
                <button type="button" className="gp-chip is-wide" onClick={() => copy(rotation.previousServerSeed)}>
                  ⧉
                </button>
              </dd>
              <dt>{t('shield.previousHash')}</dt>
              <dd>
                <code className="gp-break">{rotation.previousServerSeedHash}</code>
              </dd>
              <dt>{t('shield.previousNonce')}</dt>
              <dd>
                <code data-testid="previous-nonce">{rotation.previousNonce}</code>
              </dd>
              <dt>{t('shield.previousClientSeed')}</dt>
              <dd>
                <code className="gp-break">{rotation.previousClientSeed}</code>
              </dd>
            </dl>
            {rotation.previousNonce > 0 && (
              <button type="button" className="gp-btn" onClick={() => void verifyLast(rotation)} data-testid="rotation-open-verifier">
                {t('bets.openVerifier')}
              </button>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

export function ShieldPanel(props: ShieldProps) {
  const { onClose, tab, setTab } = props;
  const closeRef = useRef<HTMLButtonElement>(null);
  const [verifyWith, setVerifyWith] = useState<{ inputs: VerifyInputs; n: number } | null>(null);
  useEffect(() => {
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const openVerifier = (inputs: VerifyInputs) => {
    setVerifyWith((old) => ({ inputs, n: (old?.n ?? 0) + 1 }));
    setTab('verify');
  };
  const tabs: { id: ShieldTab; label: string }[] = [
    { id: 'seeds', label: t('shield.tabSeeds') },
    { id: 'verify', label: t('shield.tabVerify') },
    { id: 'bets', label: t('shield.tabBets') },
  ];
  return (
    <aside className="gp-side-panel" id="gp-side-panel" aria-label={t('shield.title')} data-testid="side-panel">
      <div className="gp-side-head">
        <h2>
          <ShieldIcon /> {t('shield.title')}
        </h2>
        <button type="button" ref={closeRef} className="gp-icon-btn" onClick={onClose} aria-label={t('shield.close')}>
          ×
        </button>
      </div>
      <div className="gp-tabs" role="tablist">
        {tabs.map((x) => (
          <button
            key={x.id}
            type="button"
            role="tab"
            aria-selected={tab === x.id}
            className={tab === x.id ? 'is-on' : ''}
            onClick={() => setTab(x.id)}
            data-testid={`shield-tab-${x.id}`}
          >
            {x.label}
          </button>
        ))}
      </div>
      {tab === 'seeds' && <SeedsTab {...props} openVerifier={openVerifier} />}
      {tab === 'verify' && (
        <Suspense fallback={<p className="gp-muted">{t('verify.loading')}</p>}>
          <VerifierForm key={verifyWith?.n ?? 0} initial={verifyWith?.inputs} />
        </Suspense>
      )}
      {tab === 'bets' && <MyBets sessionId={props.sessionId} openVerifier={openVerifier} />}
    </aside>
  );
}
