/**
 * Read-only REST views (docs/rest.md): the day's meetings and races as racewire sees them, one race's current
 * document, the recent events, and the operations summary the board shows. Documents are redacted for public
 * callers like WebSocket snapshots. Answers change often, so clients revalidate (`no-cache` + ETag).
 */
import type { OpsSummary, OpsView } from '@racewire/client/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Upstream } from '../embedded/upstream.js';
import type { EventLog } from '../store/ports.js';
import type { RaceView } from '../watch/fetch/poller.js';
import type { RaceWatch } from '../watch/track/race-watch.js';
import { errorSchema } from './errors.js';
import type { RecentEvents } from './recent-events.js';

export interface RaceRoutesDeps {
  /** The races this node knows now (the poller's, or the leader's as shared through Redis). */
  races: () => RaceView;
  log: EventLog;
  /** Removes partner-only fields; REST callers are public. */
  redact: (document: unknown) => unknown;
  ops: () => Promise<OpsSummary>;
  /** Where the data comes from: the racing API, a replayed recording or the embedded simulator. */
  upstream: Upstream['kind'];
  recent: RecentEvents;
}

const revalidate = (reply: FastifyReply) => reply.header('cache-control', 'no-cache');

const raceSummarySchema = {
  type: 'object',
  properties: {
    raceId: { type: 'string' },
    raceNumber: { type: 'integer' },
    name: { type: 'string' },
    startTime: { type: 'string', format: 'date-time' },
    status: { type: 'string' },
  },
} as const;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a table of routes, each a schema and a short handler: one API's surface read in one place
export function registerRaceRoutes(app: FastifyInstance, deps: RaceRoutesDeps): void {
  app.get(
    '/v1/meetings',
    {
      schema: {
        tags: ['races'],
        summary: "The day's meetings and their races, with status and how stale each race's data is",
        response: {
          200: {
            type: 'object',
            properties: {
              meetings: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    meetingId: { type: 'string' },
                    name: { type: 'string' },
                    country: { type: 'string' },
                    category: { type: 'string' },
                    races: { type: 'array', items: raceSummarySchema },
                  },
                },
              },
            },
          },
        },
      },
    },
    async (_req, reply) => {
      revalidate(reply);
      return { meetings: groupByMeeting(deps.races()) };
    },
  );

  app.get<{ Querystring: { limit: number; odds: boolean } }>(
    '/v1/events/recent',
    {
      schema: {
        tags: ['races'],
        summary: 'The latest events this node has seen, newest first (what a feed shows before live ones)',
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
            odds: {
              type: 'boolean',
              default: false,
              description: 'include odds.changed, odds.pools_changed and the market events',
            },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'object',
            properties: { events: { type: 'array', items: { type: 'object', additionalProperties: true } } },
          },
          400: errorSchema,
        },
      },
    },
    async (req, reply) => {
      revalidate(reply);
      return { events: deps.recent.list(req.query) };
    },
  );

  app.get<{ Params: { raceId: string } }>(
    '/v1/races/:raceId',
    {
      schema: {
        tags: ['races'],
        summary: "One race's current normalised document and its position in the race's stream",
        params: {
          type: 'object',
          properties: { raceId: { type: 'string', maxLength: 100 } },
          required: ['raceId'],
        },
        response: {
          200: {
            type: 'object',
            properties: {
              raceId: { type: 'string' },
              seq: { type: 'integer' },
              documentSeq: { type: 'integer' },
              epoch: { type: 'string' },
              document: { type: 'object', additionalProperties: true },
            },
          },
          404: errorSchema,
        },
      },
    },
    async (req, reply) => {
      const { raceId } = req.params;
      const head = await deps.log.head(raceId);
      if (head.document === undefined) {
        return reply.code(404).send({
          error: {
            code: 'race_not_found',
            message: `no document for race ${raceId} (unknown, or not fetched yet)`,
          },
        });
      }
      return {
        raceId,
        seq: head.seq,
        documentSeq: head.documentSeq,
        epoch: head.epoch,
        document: deps.redact(head.document),
      };
    },
  );

  app.get(
    '/v1/ops',
    {
      schema: {
        tags: ['operations'],
        summary:
          'Budget, races, subscribers and webhook health at a glance, and how old the data of each race still to settle is',
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (_req, reply): Promise<OpsView> => {
      revalidate(reply);
      return { ...(await deps.ops()), staleMs: staleByRace(deps.races()), upstream: deps.upstream };
    },
  );
}

function staleByRace(view: RaceView): Record<string, number> {
  const out: Record<string, number> = {};
  for (const race of view.races().values()) {
    const ms = race.finishedAt === undefined ? view.staleness(race.raceId) : undefined;
    if (ms !== undefined) out[race.raceId] = ms;
  }
  return out;
}

function groupByMeeting(view: RaceView) {
  const meetings = new Map<
    string,
    { meetingId: string; name: string; country: string; category: string; races: RaceWatch[] }
  >();
  for (const race of view.races().values()) {
    let meeting = meetings.get(race.meetingId);
    if (!meeting) {
      meeting = {
        meetingId: race.meetingId,
        name: race.meetingName,
        country: race.country,
        category: race.category,
        races: [],
      };
      meetings.set(race.meetingId, meeting);
    }
    meeting.races.push(race);
  }
  return [...meetings.values()].map((m) => ({
    ...m,
    races: m.races
      .sort((a, b) => a.raceNumber - b.raceNumber)
      .map((r) => ({
        raceId: r.raceId,
        raceNumber: r.raceNumber,
        name: r.name,
        startTime: new Date(r.startTime).toISOString(),
        status: r.status,
      })),
  }));
}
