/** The control API under /__sim: state, faults and scripted changes for out-of-process tests. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { FAULT_KINDS, type FaultKind, type FaultQueue } from './faults.js';
import { type SimWorld, SimWorldError } from './world.js';

const faultBody = z.strictObject({
  kind: z.enum(FAULT_KINDS as [FaultKind, ...FaultKind[]]),
  count: z.number().int().min(1).max(100_000).optional(),
  path: z.string().min(1).max(500).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
});
const scratchBody = z.strictObject({ entrant_id: z.string().min(1), late: z.boolean().optional() });
const statusBody = z.strictObject({ status: z.string().min(1).max(40) });
const resultsBody = z.strictObject({ placings: z.array(z.string().min(1)).min(1).optional() });

function bad(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: 'bad_request', message });
}

function parse<T>(
  schema: z.ZodType<T>,
  body: unknown,
): { ok: true; value: T } | { ok: false; message: string } {
  const r = schema.safeParse(body ?? {});
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    message: r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
  };
}

export function registerControlRoutes(app: FastifyInstance, world: SimWorld, faults: FaultQueue): void {
  const run = (reply: FastifyReply, fn: () => unknown) => {
    try {
      return reply.send({ ok: true, change: fn() });
    } catch (err) {
      if (err instanceof SimWorldError) {
        return reply
          .code(err.code === 'unknown_race' ? 404 : 400)
          .send({ error: err.code, message: err.message });
      }
      throw err;
    }
  };
  const raceId = (params: unknown) => (params as { id: string }).id;

  app.get('/__sim/state', async () => world.view());
  app.post('/__sim/faults', async (req, reply) => {
    const p = parse(faultBody, req.body);
    if (!p.ok) return bad(reply, p.message);
    faults.inject(p.value);
    return reply.code(201).send({ ok: true });
  });
  app.delete('/__sim/faults', async () => {
    faults.clear();
    return { ok: true };
  });
  app.post('/__sim/races/:id/scratch', async (req, reply) => {
    const p = parse(scratchBody, req.body);
    if (!p.ok) return bad(reply, p.message);
    return run(reply, () => world.scratch(raceId(req.params), p.value.entrant_id, { late: p.value.late }));
  });
  app.post('/__sim/races/:id/status', async (req, reply) => {
    const p = parse(statusBody, req.body);
    if (!p.ok) return bad(reply, p.message);
    return run(reply, () => world.setStatus(raceId(req.params), p.value.status));
  });
  app.post('/__sim/races/:id/results', async (req, reply) => {
    const p = parse(resultsBody, req.body);
    if (!p.ok) return bad(reply, p.message);
    return run(reply, () => world.setResults(raceId(req.params), p.value.placings));
  });
}
