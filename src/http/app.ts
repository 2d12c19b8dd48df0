/**
 * The fastify application, built without listening (fastify's testing guide): tests use `app.inject()`;
 * `main.ts` listens. Feature modules (WebSocket gateway, webhooks, metrics, board) register on it.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from '../logger.js';

export interface AppOptions {
  logger: Logger;
  /** Largest accepted request body. */
  bodyLimit?: number;
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
  });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'racewire',
        version: '0.1.0',
        description: 'Real-time change notifications for racing data: REST, WebSocket and webhooks.',
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app as unknown as FastifyInstance;
}
