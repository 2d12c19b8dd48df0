/**
 * `GET/PUT /v1/webhooks/endpoints:export`: every endpoint with its signing secret, and its restore. A store
 * that lost its data (a Redis restarted without persistence) loses the endpoints and their secrets; an
 * export kept by the operator brings them back with the same ids and secrets, so receivers keep verifying
 * (docs/operations.md). Admin only, like the rest of the endpoints API (the caller's guard applies). A
 * restore keeps an endpoint that exists already and creates the others; the URL is checked again. A restore
 * ends the "data lost" state of a wiped Redis (src/backend/redis-generation.ts), for every node.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SECRET_PREFIX } from '../dispatch/signer.js';
import type { Outbox } from '../ports.js';
import { createBody, jsonSchema } from './schemas.js';
import { endpointToExport } from './views.js';

export const exportedEndpoint = createBody.extend({
  id: z.string().min(1).max(100),
  eventTypes: createBody.shape.eventTypes.unwrap(),
  secret: z.string().startsWith(SECRET_PREFIX).max(200),
});
export const endpointsExport = z.strictObject({ endpoints: z.array(exportedEndpoint).max(10_000) });

export function endpointExportRoutes(
  app: FastifyInstance,
  deps: {
    outbox: Outbox;
    checkUrl: (url: string) => Promise<string>;
    notClosing: () => void;
    /** A restore (even of no endpoint) tells the store its loss is dealt with (WebhookStore.restored). */
    restored?: () => Promise<void>;
  },
): void {
  const tags = ['webhooks'];
  // `::` is fastify's escape for a literal colon in a path.
  app.get(
    '/endpoints::export',
    {
      schema: {
        tags,
        summary: 'Every endpoint with its signing secret, for a backup (keep it as secret as the secrets)',
        response: { 200: jsonSchema(endpointsExport, 'output') },
      },
    },
    async (_req, reply) => {
      const endpoints = (await deps.outbox.endpoints.listEndpoints()).map(endpointToExport);
      return reply.header('cache-control', 'no-store').send({ endpoints });
    },
  );

  app.put(
    '/endpoints::export',
    {
      schema: {
        tags,
        summary: 'Restore endpoints from an export: creates each one missing, with its id and secret',
        body: jsonSchema(endpointsExport),
        response: {
          200: jsonSchema(z.object({ created: z.array(z.string()), kept: z.array(z.string()) }), 'output'),
        },
      },
    },
    async (req) => {
      deps.notClosing();
      const body = req.body as z.output<typeof endpointsExport>;
      const created: string[] = [];
      const kept: string[] = [];
      for (const e of body.endpoints) {
        if (await deps.outbox.endpoints.endpoint(e.id)) {
          kept.push(e.id);
          continue;
        }
        await deps.outbox.endpoints.createEndpoint({ ...e, url: await deps.checkUrl(e.url) });
        created.push(e.id);
      }
      await deps.restored?.();
      return { created, kept };
    },
  );
}
