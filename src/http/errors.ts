/**
 * Every HTTP error in one shape, `{ "error": { "code", "message" } }` (docs/rest.md): fastify's own errors
 * (unknown route, bad URL, a path segment over 100 characters, validation, body too large, rate limit) and
 * unexpected ones, which are logged and answered without detail. Scopes with their own handler (the webhook
 * admin API) keep it.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const errorBody = (code: string, message: string) => ({ error: { code, message } });

/** The OpenAPI schema of that shape. */
export const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
} as const;

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'body_too_large',
  414: 'path_segment_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** For fastify's `frameworkErrors`: errors raised before a route is found (bad URL, long path segment). */
export function frameworkErrorHandler(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  const message =
    status === 414 ? 'a path segment is longer than 100 characters' : 'the URL is not valid (bad escape)';
  return reply.code(status).send(errorBody(CODE_BY_STATUS[status]!, message));
}

export function installErrorShape(app: FastifyInstance): void {
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send(errorBody('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)),
  );
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send(errorBody(CODE_BY_STATUS[status] ?? 'bad_request', err.message));
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send(errorBody('internal', 'internal error'));
  });
}
