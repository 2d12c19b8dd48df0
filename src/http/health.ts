/**
 * Liveness and readiness. `/healthz` says the process answers; `/readyz` runs each readiness check (upstream
 * reachable, store writable, not over budget, ...) and answers 503 naming the ones that fail.
 */
import type { FastifyInstance } from 'fastify';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<{ ok: boolean; detail?: unknown }> | { ok: boolean; detail?: unknown };
}

const checkResult = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, detail: {} },
  required: ['ok'],
} as const;

export function registerHealthRoutes(app: FastifyInstance, checks: () => ReadinessCheck[]): void {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness: the process is up and answering',
        response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      },
    },
    async () => ({ ok: true }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: upstream reachable, store writable, within budget',
        response: {
          200: {
            type: 'object',
            properties: {
              ok: { type: 'boolean' },
              checks: { type: 'object', additionalProperties: checkResult },
            },
          },
          503: {
            type: 'object',
            properties: {
              ok: { type: 'boolean' },
              checks: { type: 'object', additionalProperties: checkResult },
            },
          },
        },
      },
    },
    async (_req, reply) => {
      const results: Record<string, { ok: boolean; detail?: unknown }> = {};
      for (const { name, check } of checks()) {
        try {
          results[name] = await check();
        } catch (err) {
          results[name] = { ok: false, detail: err instanceof Error ? err.message : String(err) };
        }
      }
      const ok = Object.values(results).every((r) => r.ok);
      return reply.code(ok ? 200 : 503).send({ ok, checks: results });
    },
  );
}
