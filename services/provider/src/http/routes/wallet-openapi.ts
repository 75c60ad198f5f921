/**
 * GET /wallet-openapi.json: the wallet interface a casino implements (five signed POST callbacks),
 * as OpenAPI 3.1 generated from the zod schemas of wallet/wallet-interface.ts, with the signed
 * headers, the signature recipe, the answers and the refusals. Casinos generate server stubs from it.
 */
import { z } from 'zod';
import type { AppInstance } from '../zod-provider.js';
import {
  BUSINESS_REFUSAL_CODES,
  IDEMPOTENCY_RULES,
  idempotencyHeader,
  MONEY_PATHS,
  SIGNATURE_CODES,
  SIGNATURE_RECIPE,
  signedHeaders,
  traceHeader,
  WALLET_OPERATIONS,
  walletError,
} from '../../wallet/wallet-interface.js';
import { WEBHOOK_EVENTS } from '../../webhooks/webhook-store.js';
import { API_VERSION } from '../openapi.js';

/** The body of a webhook the casino's receiver gets (docs/integration.md "Webhooks"). */
const webhookEvent = z
  .object({
    eventId: z.string().uuid().meta({ description: 'Deduplicate on it: delivery is at least once.' }),
    type: z.enum(WEBHOOK_EVENTS),
    operatorId: z.string(),
    createdAt: z.string().meta({ description: 'ISO 8601 UTC, when the fact was recorded.' }),
    attempt: z.number().int().min(1),
    data: z.record(z.string(), z.unknown()).meta({ description: 'Per type: see docs/integration.md "Webhooks".' }),
  })
  .meta({ id: 'WebhookEvent' });
const webhookHeaders = z.object({
  'X-Event-Id': z.string().uuid().meta({ description: 'The event id (as in the body).' }),
  'X-Event-Type': z.enum(WEBHOOK_EVENTS).meta({ description: 'The event type (as in the body).' }),
});

type Json = Record<string, unknown>;

/** The schema as a $ref into `components` (named schemas carry `.meta({ id })` and land there). */
function ref(schema: z.ZodType, components: Record<string, Json>): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' }) as Json;
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  for (const [name, def] of Object.entries(defs)) components[name] = def;
  delete out.$schema;
  delete out.$defs;
  return out;
}

function headerParameters(schema: z.ZodObject): Json[] {
  const js = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as {
    properties: Record<string, Json & { description?: string }>;
    required?: string[];
  };
  return Object.entries(js.properties).map(([name, s]) => {
    const { description, ...rest } = s;
    return { name, in: 'header', required: (js.required ?? []).includes(name), description, schema: rest };
  });
}

const errorWith = (description: string, codes: readonly string[]) => ({
  description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/WalletError' },
      examples: Object.fromEntries(codes.map((code) => [code, { value: { code, message: '...' } }])),
    },
  },
});

export function buildWalletOpenApi(): Json {
  const components: Record<string, Json> = {};
  ref(walletError, components);
  const paths: Record<string, Json> = {};
  for (const op of WALLET_OPERATIONS) {
    const money = MONEY_PATHS.includes(op.path);
    const responses: Json = {
      200: {
        description: 'Done (or, for a repeated idempotency key, the original answer).',
        content: { 'application/json': { schema: ref(op.answer, components) } },
      },
      400: errorWith('A business refusal: nothing was applied.', money ? BUSINESS_REFUSAL_CODES : ['VALIDATION_ERROR', 'INVALID_SESSION', 'CURRENCY_MISMATCH']),
      401: errorWith('The signature was refused (see the recipe): nothing was applied.', SIGNATURE_CODES),
    };
    if (money) responses[409] = errorWith('The idempotency key was used with another request body.', ['IDEMPOTENCY_CONFLICT']);
    responses['5XX'] = errorWith(
      'Retryable: the service retries once at once with the same body and key (a new nonce); a debit still unanswered is then rolled back.',
      ['INTERNAL_ERROR'],
    );
    paths[op.path] = {
      post: {
        operationId: op.path.slice('/wallet/'.length).replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
        summary: op.summary,
        description: op.description,
        tags: ['wallet'],
        parameters: [...headerParameters(signedHeaders), ...(money ? headerParameters(idempotencyHeader) : []), ...headerParameters(traceHeader)],
        requestBody: { required: true, content: { 'application/json': { schema: ref(op.request, components) } } },
        responses,
      },
    };
  }
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'Wallet interface (implemented by the casino)',
      version: API_VERSION,
      description: [
        'The five callbacks the game provider sends to a casino\'s wallet (SPEC.md "Wallet interface", CONTRACT.md §6, §11).',
        'Every amount is a JSON number with the currency\'s decimals, exact. A refusal is a non-2xx JSON body `{"code": "..."}`.',
        'The callback timeout is 3 s per attempt; timeouts, network errors, 429 and 5xx are retried once at once.',
        '',
        '## Signature',
        SIGNATURE_RECIPE,
        '',
        '## Idempotency',
        IDEMPOTENCY_RULES,
        '',
        'Check an implementation with `npm run wallet-check` (services/wallet-check).',
      ].join('\n'),
    },
    servers: [
      {
        url: '{callbackBaseUrl}',
        description: "the operator profile's callbackBaseUrl",
        variables: { callbackBaseUrl: { default: 'https://casino.example/gp' } },
      },
    ],
    security: [{ hmacSignature: [] }],
    tags: [
      { name: 'wallet', description: 'Signed callbacks from the game provider' },
      { name: 'webhooks', description: "Signed events to the profile's webhook URL (optional)" },
    ],
    paths,
    webhooks: {
      operatorEvent: {
        post: {
          operationId: 'receiveWebhookEvent',
          summary: "An event for the casino's operations team, POSTed to the profile's webhook URL",
          description:
            "Signed like the callbacks with the profile's shared secret; PATH in the signed text is the path and query of the webhook URL as sent. Answer 2xx within 5 s (the body is ignored); anything else is retried with the same eventId (5 s, 15 s, 1 min, 5 min, then every 30 min). Delivery is at least once: deduplicate on eventId.",
          tags: ['webhooks'],
          parameters: [...headerParameters(signedHeaders), ...headerParameters(webhookHeaders)],
          requestBody: { required: true, content: { 'application/json': { schema: ref(webhookEvent, components) } } },
          responses: { '2XX': { description: 'Taken (the body is ignored).' }, default: { description: 'Not taken: retried later with the same eventId.' } },
        },
      },
    },
    components: {
      securitySchemes: {
        hmacSignature: { type: 'apiKey', in: 'header', name: 'X-Signature', description: SIGNATURE_RECIPE },
      },
      schemas: components,
    },
  };
  return JSON.parse(JSON.stringify(doc).replaceAll('#/$defs/', '#/components/schemas/')) as Json;
}

export function walletOpenApiRoutes(app: AppInstance): void {
  let cached: Json | null = null;
  app.get(
    '/wallet-openapi.json',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getWalletInterface',
        summary: 'The wallet interface a casino implements (OpenAPI 3.1)',
        tags: ['operators'],
        response: { 200: z.record(z.string(), z.unknown()) },
      },
    },
    async () => (cached ??= buildWalletOpenApi()),
  );
}
