/**
 * Switchable faults for the wallet endpoints. A rule is matched against every wallet request
 * that passed the signature check (and, on money paths, carries an X-Idempotency-Key); the
 * first rule that matches and fires decides what happens to that request:
 *
 * | kind              | what the casino does                                            | money applied? |
 * |-------------------|-----------------------------------------------------------------|----------------|
 * | `delay`           | waits `ms`, then processes and answers normally                  | yes, after the wait |
 * | `delay-then-drop` | waits `ms`, then destroys the socket without an answer           | no |
 * | `status`          | answers `status` (5xx or 429) with `{"code": code}` at once      | no |
 * | `drop`            | destroys the socket at once without an answer                    | no |
 * | `ambiguous`       | processes the request, then answers `status` (default 500) or,   | yes |
 * |                   | with `mode: 'drop'`, destroys the socket; with `mode: 'late'`,   |     |
 * |                   | answers the real answer only after `ms` (past the caller's timeout) |  |
 * | `refuse`          | answers `status` (default 400) with `{"code": code}` (+`message`)      | no, and the key stays free |
 * | `huge`            | answers 200 with a JSON body of `bytes` bytes (default 60 MB),   | only with `applied: true` |
 * |                   | streamed; with `applied: true` the request is processed first;   |     |
 * |                   | `chunked: true` sends no Content-Length (a hostile casino)        |     |
 *
 * Matching: `path` is an interface path (`/wallet/credit`) or `*`; `operatorId`, when given,
 * must equal X-Operator-Id. `times` caps how often the rule fires (unlimited when absent);
 * `probability` (0..1) makes each matching request fire with that chance, drawn from a seeded
 * RNG (mulberry32, re-seeded by every `set`), so a run is reproducible. A rule that does not
 * fire lets the request fall through to the next rule.
 */

export type FaultAction =
  | { kind: 'delay'; ms: number }
  | { kind: 'delay-then-drop'; ms: number }
  | { kind: 'status'; status: number; code?: string }
  | { kind: 'drop' }
  | { kind: 'ambiguous'; mode?: 'status' | 'drop' | 'late'; status?: number; ms?: number }
  | { kind: 'refuse'; code: string; status?: number; message?: string }
  | { kind: 'huge'; bytes?: number; applied?: boolean; chunked?: boolean };

export type FaultRule = FaultAction & {
  /** `/wallet/debit`, `/wallet/credit`, ... or `*` for every wallet path. */
  path: string;
  operatorId?: string;
  /** How many requests the rule hits; unlimited when absent. */
  times?: number;
  /** Chance (0..1) that a matching request is hit; 1 when absent. */
  probability?: number;
};

export interface FaultState {
  rule: FaultRule;
  /** How many requests this rule has hit so far. */
  hits: number;
}

/** Deterministic PRNG in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createFaults(defaultSeed = 1) {
  let states: FaultState[] = [];
  let random = mulberry32(defaultSeed);
  return {
    set(rules: FaultRule[], seed = defaultSeed): void {
      states = validateFaultRules(rules).map((rule) => ({ rule, hits: 0 }));
      random = mulberry32(seed);
    },
    clear(): void {
      states = [];
    },
    list(): FaultState[] {
      return states.map((s) => ({ rule: { ...s.rule }, hits: s.hits }));
    },
    /** The fault for this request, if any; counts the hit. */
    pick(path: string, operatorId: string): FaultAction | undefined {
      for (const state of states) {
        const { rule } = state;
        if (rule.path !== '*' && rule.path !== path) continue;
        if (rule.operatorId !== undefined && rule.operatorId !== operatorId) continue;
        if (rule.times !== undefined && state.hits >= rule.times) continue;
        if (rule.probability !== undefined && random() >= rule.probability) continue;
        state.hits += 1;
        return rule;
      }
      return undefined;
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;

/** Checks rules given as untrusted JSON (the control API); throws an Error naming the problem. */
export function validateFaultRules(input: unknown): FaultRule[] {
  if (!Array.isArray(input)) throw new Error('rules must be an array');
  return input.map((raw: unknown, i) => {
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const fail = (what: string): never => {
      throw new Error(`rules[${i}]: ${what}`);
    };
    const int = (name: string, min: number, max: number): void => {
      const v = r[name];
      if (v !== undefined && !(Number.isInteger(v) && (v as number) >= min && (v as number) <= max)) fail(`${name} must be an integer ${min}..${max}`);
    };
    const retryable = (): void => {
      const v = r['status'];
      if (v !== undefined && v !== 429 && !(Number.isInteger(v) && (v as number) >= 500 && (v as number) <= 599)) fail('status must be 429 or 5xx');
    };
    if (typeof r['path'] !== 'string' || !(r['path'] === '*' || r['path'].startsWith('/wallet/'))) fail("path must be '*' or '/wallet/...'");
    if (r['operatorId'] !== undefined && typeof r['operatorId'] !== 'string') fail('operatorId must be a string');
    int('times', 0, Number.MAX_SAFE_INTEGER);
    const p = r['probability'];
    if (p !== undefined && !(typeof p === 'number' && p >= 0 && p <= 1)) fail('probability must be a number 0..1');
    switch (r['kind']) {
      case 'delay':
      case 'delay-then-drop':
        if (r['ms'] === undefined) fail('ms is required');
        int('ms', 0, 600_000);
        break;
      case 'status':
        if (r['status'] === undefined) fail('status is required');
        retryable();
        break;
      case 'ambiguous':
        if (r['mode'] !== undefined && r['mode'] !== 'status' && r['mode'] !== 'drop' && r['mode'] !== 'late') fail("mode must be 'status', 'drop' or 'late'");
        if (r['mode'] === 'late' && r['ms'] === undefined) fail("ms is required with mode 'late'");
        int('ms', 0, 600_000);
        retryable();
        break;
      case 'refuse':
        if (typeof r['code'] !== 'string' || r['code'] === '') fail('code is required');
        int('status', 400, 499);
        if (r['message'] !== undefined && typeof r['message'] !== 'string') fail('message must be a string');
        break;
      case 'drop':
        break;
      case 'huge':
        int('bytes', 2, 1024 * 1024 * 1024);
        if (r['applied'] !== undefined && typeof r['applied'] !== 'boolean') fail('applied must be a boolean');
        if (r['chunked'] !== undefined && typeof r['chunked'] !== 'boolean') fail('chunked must be a boolean');
        break;
      default:
        fail('kind must be delay, delay-then-drop, status, drop, ambiguous, refuse or huge');
    }
    if (r['code'] !== undefined && typeof r['code'] !== 'string') fail('code must be a string');
    return { ...r } as FaultRule;
  });
}
