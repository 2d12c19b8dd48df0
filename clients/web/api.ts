/** The REST views the board reads (docs/rest.md), validated just enough to render safely. */
import type { OpsView, RaceEvent } from '@racewire/client';

export interface RaceSummary {
  raceId: string;
  raceNumber: number;
  name: string;
  startTime: string;
  status: string;
}

export interface MeetingSummary {
  meetingId: string;
  name: string;
  country: string;
  category: string;
  races: RaceSummary[];
}

/** The operations summary, as racewire's REST API defines it. */
export type Ops = OpsView;

export class ApiError extends Error {
  readonly code = 'RW_BOARD_API';
  constructor(
    readonly path: string,
    readonly status: number,
  ) {
    super(`GET ${path} answered ${status}`);
    this.name = this.constructor.name;
  }
}

async function getJson(path: string): Promise<unknown> {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new ApiError(path, res.status);
  return res.json();
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';

export async function fetchMeetings(): Promise<MeetingSummary[]> {
  const body = await getJson('/v1/meetings');
  const meetings = isObj(body) && Array.isArray(body.meetings) ? body.meetings : [];
  return meetings.filter(
    (m): m is MeetingSummary => isObj(m) && typeof m.meetingId === 'string' && Array.isArray(m.races),
  );
}

export async function fetchOps(): Promise<Ops | undefined> {
  const body = await getJson('/v1/ops');
  return isObj(body) && typeof body.time === 'number' && isObj(body.budget) && isObj(body.staleMs)
    ? (body as unknown as Ops)
    : undefined;
}

/** The latest events, newest first (`/v1/events/recent`), so the feed does not start empty. */
export async function fetchRecentEvents(odds: boolean): Promise<RaceEvent[]> {
  const body = await getJson(`/v1/events/recent?limit=80&odds=${odds}`);
  const events = isObj(body) && Array.isArray(body.events) ? body.events : [];
  return events.filter(
    (e): e is RaceEvent =>
      isObj(e) && typeof e.id === 'string' && typeof e.type === 'string' && typeof e.timestamp === 'string',
  );
}
