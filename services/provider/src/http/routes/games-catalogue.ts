/**
 * The game catalogue (public): GET /api/games?operatorId=… lists the operator's enabled games
 * with name, kind, theoretical RTP (domain/games/game-rtp.ts: the figures the RTP script checks),
 * the profile's bet limits in its currency (exact decimals), launch modes, languages and a
 * thumbnail; GET /static/games/<game>.svg serves the thumbnails (static/games/, drawn for us),
 * immutable behind a content hash in the URL. Unknown or disabled operator: 404 NOT_FOUND.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { GAME_INFO, LAUNCH_MODES, SUPPORTED_LANGUAGES } from '@gp/game-core/games';
import { gameRtp } from '@gp/game-core/games';
import { GAME_TYPES, type GameType } from '@gp/game-core/games';
import { formatMinorUnits } from '@gp/game-core/money';
import { AppError } from '../../errors.js';
import type { Operator } from '../../operators/operator-schema.js';
import { jsonNumber, type LosslessNumber } from '../../infra/json.js';
import { operatorIdText } from '../schemas.js';
import { publicBaseUrl } from '../public-base.js';

const THUMBNAILS_DIR = new URL('../../../static/games/', import.meta.url);

interface Thumbnail {
  svg: Buffer;
  /** Content hash in the URL: the file may be cached for good. */
  version: string;
}

/** The thumbnails, read once at start. */
function loadThumbnails(): Map<string, Thumbnail> {
  const out = new Map<string, Thumbnail>();
  for (const game of GAME_TYPES) {
    const svg = readFileSync(new URL(`${game}.svg`, THUMBNAILS_DIR));
    out.set(`${game}.svg`, { svg, version: createHash('sha256').update(svg).digest('hex').slice(0, 12) });
  }
  return out;
}

const money = z.custom<LosslessNumber>(() => true).meta({ type: 'number', description: "an amount in the operator's currency, exact, with its decimals" });
const rtpParams = z.record(z.string(), z.union([z.string(), z.number()]));

export const gamesQuery = z.object({ operatorId: operatorIdText });

export const gameEntrySchema = z.object({
  gameType: z.enum(GAME_TYPES),
  name: z.string(),
  kind: z.enum(['settled', 'active-round']).meta({ description: 'settled: one POST /api/bets; active-round: start, actions, close' }),
  rtp: z
    .object({
      value: z.number().meta({ description: 'theoretical return to player in percent, at `params`' }),
      params: rtpParams,
      min: z.number().meta({ description: 'lowest over the params the game accepts (limbo: over its reference targets)' }),
      max: z.number(),
      variants: z
        .array(z.object({ params: rtpParams, value: z.number() }))
        .optional()
        .meta({ description: 'plinko (rows × risk) and keno (risk × picks): every table' }),
    })
    .meta({ description: 'computed from the game rules and paytables (the figures `npm run rtp` checks by simulation)' }),
  minBet: money,
  maxBet: money.nullable(),
  stakeStep: money,
  maxPayout: money,
  launchModes: z.array(z.enum(LAUNCH_MODES)),
  languages: z.array(z.enum(SUPPORTED_LANGUAGES)),
  thumbnailUrl: z.string(),
});

export const gamesAnswerSchema = z.object({
  operatorId: z.string(),
  currency: z.string(),
  decimals: z.number().int(),
  games: z.array(gameEntrySchema),
});

function gameEntry(op: Operator, game: GameType, thumbnailUrl: string) {
  const amount = (v: bigint) => jsonNumber(formatMinorUnits(v, op.decimals));
  return {
    gameType: game,
    name: GAME_INFO[game].name,
    kind: GAME_INFO[game].kind,
    rtp: gameRtp(game),
    minBet: amount(op.minBet),
    maxBet: op.maxBet === null ? null : amount(op.maxBet),
    stakeStep: amount(op.stakeStep),
    maxPayout: amount(op.maxPayout),
    launchModes: [...LAUNCH_MODES],
    languages: [...SUPPORTED_LANGUAGES],
    thumbnailUrl,
  };
}

export function gamesCatalogueRoutes(app: AppInstance, s: Services): void {
  const thumbnails = loadThumbnails();

  app.get(
    '/api/games',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'listGames',
        summary: "The operator's enabled games: names, kinds, RTP, bet limits, launch modes, languages, thumbnails",
        tags: ['operators'],
        querystring: gamesQuery,
        response: { 200: gamesAnswerSchema },
      },
    },
    async (request, reply) => {
      const op = await s.operators.get(s.db, request.query.operatorId);
      if (!op || !op.enabled) throw new AppError('NOT_FOUND', 'no such operator');
      const base = publicBaseUrl(s.config, app.server);
      const games = GAME_TYPES.filter((g) => op.enabledGames.includes(g)).map((g) =>
        gameEntry(op, g, `${base}/static/games/${g}.svg?v=${thumbnails.get(`${g}.svg`)!.version}`),
      );
      void reply.header('cache-control', 'public, max-age=60');
      return { operatorId: op.operatorId, currency: op.currency, decimals: op.decimals, games };
    },
  );

  app.get(
    '/static/games/:file',
    { config: { auth: 'public' }, schema: { hide: true, params: z.object({ file: z.string().max(100) }) } },
    async (request, reply) => {
      const thumbnail = thumbnails.get(request.params.file);
      if (!thumbnail) throw new AppError('NOT_FOUND', 'no such file');
      return reply
        .header('content-type', 'image/svg+xml')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(thumbnail.svg);
    },
  );
}
