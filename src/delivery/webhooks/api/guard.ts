/**
 * Plumbing of the endpoints API scope: admin authentication (bearer token, or loopback only when no token is
 * configured), strict zod validation, and `{ error: { code, message } }` for every error.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AuthFailures, checkBearer, sendTooManyFailures } from '../../../http/auth-failures.js';
import { errorBody, WebhookError } from '../errors.js';
import { describeIssues, zodFor } from './schemas.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export function installApiGuard(
  app: FastifyInstance,
  config: { adminToken?: string; authFailures: AuthFailures },
): void {
  // Strict validation with zod (fastify's default ajv would silently drop unknown fields).
  app.setValidatorCompiler(({ schema }) => {
    const zod = zodFor(schema);
    return (data: unknown) => {
      if (!zod) return { value: data };
      const r = zod.safeParse(data ?? {});
      return r.success
        ? { value: r.data }
        : { error: new WebhookError('RW_WEBHOOK_INVALID_REQUEST', describeIssues(r.error)) };
    };
  });
  // Response schemas document; they do not filter (views.ts builds every answer explicitly).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler(
    (err: Error & { code?: string; statusCode?: number; validation?: unknown }, _req, reply) => {
      if (err instanceof WebhookError) return reply.code(err.status).send(errorBody(err.code, err.message));
      const cause = (err as { cause?: unknown }).cause;
      if (err.validation !== undefined || cause instanceof WebhookError) {
        const message = cause instanceof WebhookError ? cause.message : err.message;
        return reply.code(400).send(errorBody('RW_WEBHOOK_INVALID_REQUEST', message));
      }
      if (err.statusCode === 429) return reply.code(429).send(errorBody('rate_limited', err.message));
      if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
        // fastify's own client errors (bad JSON, wrong content type, too large).
        return reply.code(err.statusCode).send(errorBody('RW_WEBHOOK_INVALID_REQUEST', err.message));
      }
      app.log.error({ err }, 'webhook API error');
      return reply.code(500).send(errorBody('RW_WEBHOOK_INTERNAL', 'internal error'));
    },
  );

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (config.adminToken) {
      // Counted before the token is compared, so a guesser past the limit learns nothing more.
      const verdict = checkBearer(config.authFailures, req.ip, req.headers.authorization, config.adminToken);
      if (!verdict.ok && verdict.status === 429) return sendTooManyFailures(reply, verdict.retryAfterSeconds);
      if (!verdict.ok) {
        const e = new WebhookError('RW_WEBHOOK_UNAUTHORIZED');
        return reply.code(e.status).header('www-authenticate', 'Bearer').send(errorBody(e.code, e.message));
      }
    } else if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) {
      const e = new WebhookError('RW_WEBHOOK_FORBIDDEN');
      return reply.code(e.status).send(errorBody(e.code, e.message));
    }
  });
}
