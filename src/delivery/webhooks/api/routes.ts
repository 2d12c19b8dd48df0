/**
 * The endpoints API under /v1/webhooks: endpoints CRUD, secret rotation, test events, deliveries, attempts
 * and replays. Admin only: a bearer token, or loopback callers when no token is configured.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RaceEvent } from '../../../events/envelope.js';
import type { ResolvedWebhookConfig } from '../config.js';
import { generateSecret } from '../dispatch/signer.js';
import { checkWebhookUrl, type Resolver } from '../dispatch/ssrf.js';
import { WebhookError } from '../errors.js';
import { CHAT_ALERT_TYPES } from '../formatters/chat-message.js';
import { formatBody } from '../formatters/index.js';
import { newEndpointId } from '../model.js';
import type { Outbox } from '../ports.js';
import { endpointExportRoutes } from './endpoint-export.js';
import { installApiGuard } from './guard.js';
import {
  attemptView,
  createBody,
  deliveriesQuery,
  deliveryParams,
  deliveryView,
  endpointParams,
  endpointView,
  errorView,
  jsonSchema,
  replayRangeBody,
  updateBody,
} from './schemas.js';
import { attemptToView, deliveryToView, endpointToView } from './views.js';

export interface RoutesDeps {
  outbox: Outbox;
  config: ResolvedWebhookConfig;
  resolve: Resolver;
  now: () => number;
  /** Called after anything was enqueued, to wake the dispatcher. */
  kick: () => void;
  isClosing: () => boolean;
  /** See WebhookStore.restored. */
  restored?: () => Promise<void>;
}

const errors = { 400: jsonSchema(errorView), 401: jsonSchema(errorView), 404: jsonSchema(errorView) };

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a table of routes, each a schema and a short handler: one API's surface read in one place
export async function webhookRoutes(app: FastifyInstance, deps: RoutesDeps): Promise<void> {
  const { config, outbox } = deps;
  const { queue, endpoints, history } = outbox;
  installApiGuard(app, config);

  const mustEndpoint = async (id: string) => {
    const e = await endpoints.endpoint(id);
    if (!e) throw new WebhookError('RW_WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${id}`);
    return e;
  };
  const mustDelivery = async (id: number) => {
    const d = await history.delivery(id);
    if (!d) throw new WebhookError('RW_WEBHOOK_DELIVERY_NOT_FOUND', `no delivery ${id}`);
    return d;
  };
  const checkUrl = (url: string) => checkWebhookUrl(url, config, deps.resolve).then((u) => u.toString());
  const notClosing = () => {
    if (deps.isClosing()) throw new WebhookError('RW_WEBHOOK_SHUTTING_DOWN');
  };

  endpointExportRoutes(app, { outbox, checkUrl, notClosing, restored: deps.restored });

  const endpointOut = jsonSchema(endpointView, 'output');
  const tags = ['webhooks'];

  app.post(
    '/endpoints',
    {
      schema: {
        tags,
        summary: 'Register a webhook endpoint; answers its signing secret once',
        body: jsonSchema(createBody),
        response: {
          201: jsonSchema(z.object({ endpoint: endpointView, secret: z.string() }), 'output'),
          ...errors,
        },
      },
    },
    async (req, reply) => {
      const body = req.body as z.output<typeof createBody>;
      const url = await checkUrl(body.url);
      const secret = generateSecret();
      const created = await endpoints.createEndpoint({
        id: newEndpointId(),
        url,
        kind: body.kind,
        description: body.description,
        eventTypes: body.eventTypes ?? (body.kind === 'standard' ? ['*'] : CHAT_ALERT_TYPES),
        filters: body.filters,
        enabled: body.enabled,
        secret,
      });
      return reply.code(201).send({ endpoint: endpointToView(created, deps.now()), secret });
    },
  );

  app.get(
    '/endpoints',
    {
      schema: {
        tags,
        summary: 'List endpoints',
        response: { 200: jsonSchema(z.object({ endpoints: z.array(endpointView) }), 'output') },
      },
    },
    async () => ({ endpoints: (await endpoints.listEndpoints()).map((e) => endpointToView(e, deps.now())) }),
  );

  app.get(
    '/endpoints/:id',
    {
      schema: {
        tags,
        summary: 'Get an endpoint',
        params: jsonSchema(endpointParams),
        response: { 200: endpointOut, ...errors },
      },
    },
    async (req) => endpointToView(await mustEndpoint((req.params as { id: string }).id), deps.now()),
  );

  app.patch(
    '/endpoints/:id',
    {
      schema: {
        tags,
        summary: 'Update an endpoint (enabled: true re-enables it and resumes its held deliveries)',
        params: jsonSchema(endpointParams),
        body: jsonSchema(updateBody),
        response: { 200: endpointOut, ...errors },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      const body = req.body as z.output<typeof updateBody>;
      await mustEndpoint(id);
      const patch = { ...body, url: body.url === undefined ? undefined : await checkUrl(body.url) };
      const updated = await endpoints.updateEndpoint(id, patch);
      if (!updated) throw new WebhookError('RW_WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${id}`);
      if (body.enabled) deps.kick();
      return endpointToView(updated, deps.now());
    },
  );

  app.delete(
    '/endpoints/:id',
    {
      schema: {
        tags,
        summary: 'Delete an endpoint and its delivery log',
        params: jsonSchema(endpointParams),
        response: { 204: { type: 'null' }, ...errors },
      },
    },
    async (req, reply) => {
      const { id } = req.params as { id: string };
      if (!(await endpoints.deleteEndpoint(id)))
        throw new WebhookError('RW_WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${id}`);
      return reply.code(204).send();
    },
  );

  app.post(
    '/endpoints/:id/rotate-secret',
    {
      schema: {
        tags,
        summary: 'New secret; the old one keeps signing beside it for the rotation overlap (24 h)',
        params: jsonSchema(endpointParams),
        response: {
          200: jsonSchema(z.object({ endpoint: endpointView, secret: z.string() }), 'output'),
          ...errors,
        },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      await mustEndpoint(id);
      const secret = generateSecret();
      const updated = await endpoints.rotateSecret(id, secret, config.rotationOverlapMs);
      if (!updated) throw new WebhookError('RW_WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${id}`);
      return { endpoint: endpointToView(updated, deps.now()), secret };
    },
  );

  app.post(
    '/endpoints/:id/test',
    {
      schema: {
        tags,
        summary: 'Send a webhook.test event to the endpoint',
        params: jsonSchema(endpointParams),
        response: { 202: jsonSchema(z.object({ delivery: deliveryView }), 'output'), ...errors },
      },
    },
    async (req, reply) => {
      notClosing();
      const ep = await mustEndpoint((req.params as { id: string }).id);
      const now = deps.now();
      const event: RaceEvent = {
        id: `test:${randomUUID()}`,
        type: 'webhook.test',
        timestamp: new Date(now).toISOString(),
        stream: `test:${ep.id}`,
        seq: 0,
        meetingId: 'test',
        data: { message: 'racewire test event' },
      };
      // Regardless of the endpoint's filters: it asked for this event.
      const body = formatBody(ep.kind, event);
      if (body === undefined)
        throw new WebhookError('RW_WEBHOOK_INTERNAL', 'the test event could not be formatted');
      const delivery = await queue.enqueue({ endpointId: ep.id, event, body });
      if (!delivery) throw new WebhookError('RW_WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${ep.id}`);
      deps.kick();
      return reply.code(202).send({ delivery: deliveryToView(delivery) });
    },
  );

  app.get(
    '/endpoints/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'Deliveries of an endpoint, newest first (page with ?before=<id>)',
        params: jsonSchema(endpointParams),
        querystring: jsonSchema(deliveriesQuery),
        response: { 200: jsonSchema(z.object({ deliveries: z.array(deliveryView) }), 'output'), ...errors },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      await mustEndpoint(id);
      const q = req.query as z.output<typeof deliveriesQuery>;
      const deliveries = await history.listDeliveries(id, {
        status: q.status,
        limit: q.limit,
        beforeId: q.before,
      });
      return { deliveries: deliveries.map(deliveryToView) };
    },
  );

  app.post(
    '/endpoints/:id/replay',
    {
      schema: {
        tags,
        summary: 'Replay every delivery of the endpoint created in [from, to] (same ids, same bytes)',
        params: jsonSchema(endpointParams),
        body: jsonSchema(replayRangeBody),
        response: { 202: jsonSchema(z.object({ replayed: z.number() }), 'output'), ...errors },
      },
    },
    async (req, reply) => {
      notClosing();
      const { id } = req.params as { id: string };
      await mustEndpoint(id);
      const { from, to } = req.body as z.output<typeof replayRangeBody>;
      const replayed = await queue.replayRange(id, Date.parse(from), Date.parse(to));
      deps.kick();
      return reply.code(202).send({ replayed });
    },
  );

  app.get(
    '/deliveries/:deliveryId',
    {
      schema: {
        tags,
        summary: 'A delivery with its attempts (status code, latency, truncated response body)',
        params: jsonSchema(deliveryParams),
        response: {
          200: jsonSchema(z.object({ delivery: deliveryView, attempts: z.array(attemptView) }), 'output'),
          ...errors,
        },
      },
    },
    async (req) => {
      const d = await mustDelivery((req.params as { deliveryId: number }).deliveryId);
      return { delivery: deliveryToView(d), attempts: (await history.attempts(d.id)).map(attemptToView) };
    },
  );

  app.post(
    '/deliveries/:deliveryId/replay',
    {
      schema: {
        tags,
        summary: 'Replay one delivery (same webhook-id, same body)',
        params: jsonSchema(deliveryParams),
        response: { 202: jsonSchema(z.object({ delivery: deliveryView }), 'output'), ...errors },
      },
    },
    async (req, reply) => {
      notClosing();
      const d = await mustDelivery((req.params as { deliveryId: number }).deliveryId);
      const replay = await queue.replay(d.id);
      if (!replay) throw new WebhookError('RW_WEBHOOK_DELIVERY_NOT_FOUND', `no delivery ${d.id}`);
      deps.kick();
      return reply.code(202).send({ delivery: deliveryToView(replay) });
    },
  );
}
