/**
 * Window messages with the casino page (CONTRACT.md §14): PROVIDER_READY, PROVIDER_SWITCH_CURRENCY
 * → PROVIDER_SWITCH_CURRENCY_RESULT, PROVIDER_RESIZE. Messages from an origin outside the
 * profile's allowedEmbedOrigins are ignored without an answer (an empty list: any origin outside
 * production, none in production). Answers go to the sender's origin, never to `*`.
 */
export const MSG = {
  ready: 'PROVIDER_READY',
  switchCurrency: 'PROVIDER_SWITCH_CURRENCY',
  switchResult: 'PROVIDER_SWITCH_CURRENCY_RESULT',
  resize: 'PROVIDER_RESIZE',
  /** issue 27: the reality check opened (betting paused) */
  realityCheck: 'PROVIDER_REALITY_CHECK',
  /** issue 27: the player chose Leave in the reality check */
  exit: 'PROVIDER_EXIT',
} as const;

export interface EmbedPolicy {
  allowedOrigins: readonly string[];
  production: boolean;
}

export function originAllowed(origin: string, policy: EmbedPolicy): boolean {
  if (!origin || origin === 'null') return false;
  if (policy.allowedOrigins.length === 0) return !policy.production;
  return policy.allowedOrigins.includes(origin);
}

export const isEmbedded = (): boolean => window.parent !== window;

/** The origin of the page holding the iframe, when the browser tells it. */
export function embeddingOrigin(): string | null {
  if (!isEmbedded()) return null;
  const ancestors = (window.location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors.item(0);
  try {
    return document.referrer ? new URL(document.referrer).origin : null;
  } catch {
    return null;
  }
}

export interface SessionSummary {
  sessionId: string;
  operatorId: string;
  currency: string;
  balance: number;
  game: string | null;
}

/** PROVIDER_READY to the embedding page: its origin when known and allowed; else each listed origin (the browser delivers to the one that matches). */
export function postReady(session: SessionSummary, policy: EmbedPolicy): void {
  postToCasino({ type: MSG.ready, session }, policy);
}

/** A message to the embedding page, with PROVIDER_READY's origin rule (never `*`). */
export function postToCasino(message: Record<string, unknown>, policy: EmbedPolicy): void {
  if (!isEmbedded()) return;
  const origin = embeddingOrigin();
  if (origin) {
    if (originAllowed(origin, policy)) window.parent.postMessage(message, origin);
    return;
  }
  for (const o of policy.allowedOrigins) window.parent.postMessage(message, o);
}

export interface SwitchRequest {
  requestId: string;
  operatorId: string;
  launchToken: string;
  game: string;
  launchMode: string;
}

/** Reads a PROVIDER_SWITCH_CURRENCY message: null when it is not one; `invalid` when a field is missing. */
export function readSwitchMessage(data: unknown): { request: SwitchRequest } | { invalid: true; requestId: string | null } | null {
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  if (d.type !== MSG.switchCurrency) return null;
  const str = (k: string, max = 2000) => (typeof d[k] === 'string' && (d[k] as string).length > 0 && (d[k] as string).length <= max ? (d[k] as string) : null);
  const requestId = str('requestId', 200);
  const operatorId = str('operatorId', 200);
  const launchToken = str('launchToken');
  const game = str('game', 40);
  const launchMode = str('launchMode', 20) ?? 'single';
  if (!requestId || !operatorId || !launchToken || !game) return { invalid: true, requestId };
  return { request: { requestId, operatorId, launchToken, game, launchMode } };
}

/** Posts PROVIDER_RESIZE whenever the content height changes (embed=1 without fill=1). Returns the stop function. */
export function reportHeight(root: HTMLElement, policy: () => EmbedPolicy): () => void {
  if (!isEmbedded()) return () => undefined;
  let last = -1;
  const send = () => {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    const origin = embeddingOrigin();
    // It carries nothing secret: `*` when the embedding origin is unknown (CONTRACT.md §14).
    const target = origin && originAllowed(origin, policy()) ? origin : '*';
    window.parent.postMessage({ type: MSG.resize, height }, target);
  };
  const observer = new ResizeObserver(send);
  observer.observe(root);
  send();
  return () => observer.disconnect();
}
