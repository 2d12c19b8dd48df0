/** A tiny programmable HTTP stand-in for the racing API, for the client's unit tests. */
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';

export type StubHandler = (req: FastifyRequest, reply: FastifyReply) => unknown;

export interface StubServer {
  baseUrl: string;
  /** Every request seen: path (no query), query and headers. */
  requests: { path: string; query: Record<string, string>; headers: Record<string, unknown> }[];
  /** Handlers used in turn, one per request; the last one repeats. */
  respond(...handlers: StubHandler[]): void;
  close(): Promise<void>;
}

export const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/upstream/${name}`, import.meta.url), 'utf8'));

/** A valid single-meeting response (GET /meetings/{id}): the body the retry and error tests answer with. */
export const oneMeeting = (): unknown => fixture('meeting-small.json');

export async function startStub(): Promise<StubServer> {
  const app = Fastify();
  const requests: StubServer['requests'] = [];
  let handlers: StubHandler[] = [];
  let turn = 0;
  app.get('/affiliates/v1/racing/*', async (req, reply) => {
    const url = new URL(req.url, 'http://stub');
    requests.push({
      path: url.pathname.replace('/affiliates/v1/racing', ''),
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
    });
    const handler = handlers[Math.min(turn++, handlers.length - 1)];
    if (!handler) return reply.code(500).send({ error: 'no_handler', message: 'stub not programmed' });
    return handler(req, reply);
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    baseUrl: `${address}/affiliates/v1/racing`,
    requests,
    respond(...h) {
      handlers = h;
      turn = 0;
      requests.length = 0;
    },
    close: () => app.close(),
  };
}
