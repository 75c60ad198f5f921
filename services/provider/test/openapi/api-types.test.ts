/**
 * The typed contract (issue 24 item 4): /openapi.json names its shared schemas (RoundStatus, the
 * error catalogue's codes, the union of the games' params, ...) as components, and the generated
 * files both pages compile against (api/openapi.json, api/openapi-types.ts, imported as
 * `@gp/api-types`) are what the current answers produce: a changed answer without a regeneration
 * fails here, and with one it fails the pages' typecheck where they read it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GAME_TYPES } from '@gp/game-core/games';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/errors.js';
import { PUBLIC_ROUND_STATUSES, ROUND_STATUSES } from '../../src/rounds/round-status.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const API = path.resolve(HERE, '../../api');
type Schema = { enum?: string[]; anyOf?: { $ref: string }[]; properties?: Record<string, { $ref?: string }> };
const doc = JSON.parse(readFileSync(path.join(API, 'openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>>;
};
const schemas = doc.components.schemas;

describe('the named schemas of /openapi.json', () => {
  it('names the round statuses, the error codes and the games', () => {
    expect(schemas.RoundStatus!.enum).toEqual([...PUBLIC_ROUND_STATUSES]);
    expect(schemas.StoredRoundStatus!.enum).toEqual([...ROUND_STATUSES]);
    expect(schemas.ErrorCode!.enum).toEqual(Object.keys(ERROR_STATUS));
    expect(schemas.GameType!.enum).toEqual([...GAME_TYPES]);
    expect(schemas.Error!.properties!.code!.$ref).toBe('#/components/schemas/ErrorCode');
    expect(schemas.Error!.properties!.roundStatus!.$ref).toBe('#/components/schemas/RoundStatus');
  });

  it("documents a game's params as the union of every game's params schema", () => {
    expect(schemas.GameParams!.anyOf!.map((r) => r.$ref)).toEqual(
      GAME_TYPES.map((g) => `#/components/schemas/${g.charAt(0).toUpperCase()}${g.slice(1)}Params`),
    );
    for (const g of GAME_TYPES) expect(schemas[`${g.charAt(0).toUpperCase()}${g.slice(1)}Params`], g).toBeTruthy();
    expect(schemas.Round!.properties!.roundStatus!.$ref).toBe('#/components/schemas/RoundStatus');
  });

  it('refers to the named answers from the operations', () => {
    expect(doc.paths['/api/bets']!.post!.responses['200']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/Round');
    expect(doc.paths['/api/bets']!.post!.responses['4XX']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/Error');
  });
});

describe('the generated files the pages compile against', () => {
  it('are current (else: npm run api-types -w services/provider, and commit)', async () => {
    const { staleFiles } = (await import(path.resolve(HERE, '../../scripts/api-types.mjs'))) as { staleFiles(): Promise<string[]> };
    expect(await staleFiles()).toEqual([]);
  }, 60_000);
});
