/**
 * Request and response shapes of the endpoints API, written once in zod: zod validates strictly (unknown
 * fields are errors, not silently dropped) and `z.toJSONSchema` gives @fastify/swagger the same shapes.
 */
import { z } from 'zod';

const id = z.string().min(1).max(100);
const eventType = z
  .string()
  .regex(
    /^(\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?)$/,
    'an event type like runner.scratched, a family like market.*, or *',
  );

export const filtersSchema = z.strictObject({
  raceId: id.optional(),
  meetingId: id.optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2,3}$/, 'a country code like AUS')
    .optional(),
  category: z.enum(['T', 'H', 'G']).optional(),
  // This endpoint's own market thresholds, over the deployment's (docs/webhooks.md#market-thresholds).
  minStake: z.number().positive().max(1e9).optional(),
  minMovePct: z.number().positive().max(10_000).optional(),
  minMoneyPoints: z.number().positive().max(100).optional(),
});

export const createBody = z.strictObject({
  url: z.string().min(1).max(2048),
  kind: z.enum(['standard', 'slack', 'discord']).default('standard'),
  eventTypes: z.array(eventType).min(1).max(100).optional(),
  filters: filtersSchema.default({}),
  description: z.string().max(500).default(''),
  enabled: z.boolean().default(true),
});

export const updateBody = z
  .strictObject({
    url: z.string().min(1).max(2048).optional(),
    eventTypes: z.array(eventType).min(1).max(100).optional(),
    filters: filtersSchema.optional(),
    description: z.string().max(500).optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'the body must change at least one field');

export const endpointParams = z.strictObject({ id });
export const deliveryParams = z.strictObject({ deliveryId: z.coerce.number().int().positive() });

export const deliveriesQuery = z.strictObject({
  status: z.enum(['pending', 'in_flight', 'delivered', 'failed']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.coerce.number().int().positive().optional(),
});

export const replayRangeBody = z
  .strictObject({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) })
  .refine((b) => Date.parse(b.from) <= Date.parse(b.to), 'from must not be after to');

const iso = z.string();
export const endpointView = z.object({
  id: z.string(),
  url: z.string(),
  kind: z.enum(['standard', 'slack', 'discord']),
  description: z.string(),
  eventTypes: z.array(z.string()),
  filters: filtersSchema,
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  failingSince: iso.nullable(),
  previousSecretExpiresAt: iso.nullable(),
  createdAt: iso,
  updatedAt: iso,
});

export const deliveryView = z.object({
  id: z.number(),
  endpointId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  stream: z.string(),
  seq: z.number(),
  status: z.enum(['pending', 'in_flight', 'delivered', 'failed']),
  attempts: z.number(),
  nextAttemptAt: iso,
  createdAt: iso,
  updatedAt: iso,
  lastStatusCode: z.number().nullable(),
  lastError: z.string().nullable(),
  replayOf: z.number().nullable(),
});

export const attemptView = z.object({
  attemptNo: z.number(),
  at: iso,
  statusCode: z.number().nullable(),
  latencyMs: z.number(),
  error: z.string().nullable(),
  responseBody: z.string().describe('the first 1024 characters of the response'),
  outcome: z.enum(['delivered', 'retry', 'failed', 'disable']),
});

export const errorView = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

const registry = new WeakMap<object, z.ZodType>();

/** The JSON schema of a zod schema, remembered so the route's validator can use the zod schema itself. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  registry.set(json, schema);
  return json;
}

export const zodFor = (json: object): z.ZodType | undefined => registry.get(json);

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}
