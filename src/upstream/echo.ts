/**
 * What a /meetings response's `params` echo says about the request it answers. Pure.
 *
 * The official description (racing-api.md) lists `enc`, `date_from`, `date_to`, `type` and `country` in the
 * echo and `limit`, `offset`, `ids`, `futures`, `meeting_numbers` only optionally; the OpenAPI document does
 * not describe the echo at all. The real list of 2025-07-17 echoes every member, but that is a habit, not a
 * promise, so the echo is read for what it says and never required:
 *
 * - a member left out is accepted (`omitted`, which the client logs once and counts);
 * - `limit` and `offset` are read as what the server applied (a clamped limit pages by the echoed one);
 * - the dates are not judged here: a server may echo the asked day as an instant of another zone (the
 *   previous or next UTC day), so discovery judges a page by its meetings' own dates (meetings-pager.ts);
 * - a `country` or category filter echoed as another value is a response to another request: `mismatches`.
 */

export interface Mismatch {
  name: string;
  asked: unknown;
  echoed: unknown;
}

export interface AskedMeetings {
  date_from: string;
  date_to: string;
  country?: string;
  category?: string;
  limit?: number;
  offset?: number;
}

export interface MeetingsEcho {
  /** Members of the description's echo that this one leaves out (all of them when there is no `params`). */
  omitted: string[];
  /** The limit the server says it applied, when echoed as a whole number of at least 1. */
  limit?: number;
  /** The offset the server says it applied, when echoed as a whole number of at least 0. */
  offset?: number;
  /** The echoed dates, as the server wrote them. */
  dateFrom?: string;
  dateTo?: string;
  /** Filters echoed as another value than the one asked: the response answers another request. */
  mismatches: Mismatch[];
}

/** The members the official description lists in the /meetings echo, in its order. */
export const ECHO_MEMBERS = [
  'enc',
  'date_from',
  'date_to',
  'type',
  'country',
  'ids',
  'limit',
  'offset',
  'futures',
  'meeting_numbers',
] as const;

export function readMeetingsEcho(asked: AskedMeetings, params: unknown): MeetingsEcho {
  const echoed = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
  const omitted = ECHO_MEMBERS.filter((name) => !(name in echoed));
  const mismatches: Mismatch[] = [];
  // An echo that leaves a filter out says nothing against it; one that names another value does.
  if (asked.country !== undefined && 'country' in echoed && echoed.country !== asked.country) {
    mismatches.push({ name: 'country', asked: asked.country, echoed: echoed.country });
  }
  if (asked.category !== undefined && 'type' in echoed && echoed.type !== asked.category) {
    mismatches.push({ name: 'category', asked: asked.category, echoed: echoed.type });
  }
  return {
    omitted,
    limit: wholeNumber(echoed.limit, 1),
    offset: wholeNumber(echoed.offset, 0),
    dateFrom: typeof echoed.date_from === 'string' ? echoed.date_from : undefined,
    dateTo: typeof echoed.date_to === 'string' ? echoed.date_to : undefined,
    mismatches,
  };
}

const wholeNumber = (value: unknown, min: number): number | undefined => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= min ? n : undefined;
};
