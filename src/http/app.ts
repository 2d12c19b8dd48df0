/**
 * The fastify application, built without listening (fastify's testing guide): tests use `app.inject()`;
 * `main.ts` listens. Feature modules (WebSocket gateway, webhooks, metrics, board) register on it. Here is
 * what every route gets (docs/rest.md): weak ETags with 304 answers (@fastify/etag), compression
 * (@fastify/compress), CORS when configured (@fastify/cors), per-client rate limits on the REST and admin
 * APIs (@fastify/rate-limit), errors in one shape, and an OpenAPI document with the bearer schemes.
 */
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import etag from '@fastify/etag';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from '../logger.js';
import { frameworkErrorHandler, installErrorShape } from './errors.js';
import { installRateLimits, type RateLimits } from './rate-limit.js';

export interface AppOptions {
  logger: Logger;
  /** Largest accepted request body. */
  bodyLimit?: number;
  /** `CORS_ORIGINS`: '*', a comma-separated list, or undefined for no cross-origin access. */
  corsOrigins?: string;
  rateLimits?: RateLimits;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { restPerMinute: 300, adminPerMinute: 60 };

/** Which routes need which credential, for the OpenAPI document (the routes themselves enforce it). */
function securityOf(url: string): Record<string, string[]>[] | undefined {
  if (url.startsWith('/v1/webhooks')) return [{ adminToken: [] }];
  if (url === '/v1/sse') return [{}, { apiKey: [] }];
  return undefined;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // Request logging at info level would log every board poll; warnings and errors still go out.
    loggerInstance: opts.logger.child(
      { component: 'http' },
      { level: opts.logger.levelVal > 40 ? opts.logger.level : 'warn' },
    ),
    bodyLimit: opts.bodyLimit ?? 256 * 1024,
    // Behind a proxy, operators set trustProxy through the platform; here loopback checks use the socket.
    trustProxy: false,
    frameworkErrors: frameworkErrorHandler,
  }) as unknown as FastifyInstance;
  installErrorShape(app);
  // ETag before compression: the tag is of the content, the same for every encoding, hence weak.
  await app.register(etag, { weak: true });
  await app.register(compress, { threshold: 1024 });
  await app.register(cors, {
    origin: opts.corsOrigins === '*' ? true : (opts.corsOrigins?.split(',') ?? false),
    exposedHeaders: [
      'etag',
      'retry-after',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ],
  });
  await installRateLimits(app, opts.rateLimits ?? DEFAULT_RATE_LIMITS);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'racewire',
        version: '0.1.0',
        description: 'Real-time change notifications for racing data: REST, WebSocket and webhooks.',
      },
      components: {
        securitySchemes: {
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'ADMIN_TOKEN, for the webhook admin API (loopback only when none is configured)',
          },
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'A subscriber key from API_KEYS; without one, public scope (when ALLOW_ANONYMOUS)',
          },
        },
      },
    },
    transform: ({ schema, url }) => {
      const security = securityOf(url);
      return { schema: security ? { ...schema, security } : schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
