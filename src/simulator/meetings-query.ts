/**
 * GET /meetings as the official description has it: `date_from` and `date_to` default to `today` and take
 * `YYYY-MM-DD`, `today`, `week`, `month` or `all` (and, per the seed spec, an ISO 8601 datetime); `limit`
 * defaults to 100 and is capped at 200, `offset` to 0; meetings come ordered by first start, and the
 * request is echoed in `params` as the real payload does (dates as datetimes, empty filters as " ").
 *
 * The description states the maximum but no error for a larger `limit`: the simulator caps it and echoes
 * the limit it applied, so a client must read `params.limit`. A `limit` or `offset` that is not an integer
 * (or a limit below 1, an offset below 0), an unknown date keyword or category is a 400.
 */

import { dayStart } from './calendar.js';
import { DAY, dayOf, HOUR, MINUTE } from './changes.js';
import type { FaultKind } from './faults.js';
import type { MeetingStatic } from './model.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;
const DATE_KEYWORDS = ['today', 'week', 'month', 'all'] as const;
const CATEGORIES = new Set(['T', 'H', 'G']);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const INTEGER = /^-?\d{1,9}$/;

export type Query = Record<string, string | undefined>;

/**
 * A date parameter as epoch ms: `today` is now to the minute (the real echo of the default), `week` the
 * Monday of this week and `month` the 1st of this month (00:00 UTC); `all` is the first (for date_from)
 * or last (date_to) day that exists. Undefined when invalid.
 */
function parseDateParam(
  value: string,
  now: number,
  all: { from: number; to: number },
  bound: 'from' | 'to',
): number | undefined {
  switch (value) {
    case 'today':
      return Math.floor(now / MINUTE) * MINUTE;
    case 'week':
      return dayOf(now) - ((new Date(now).getUTCDay() + 6) % 7) * DAY;
    case 'month': {
      const d = new Date(now);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
    case 'all':
      return all[bound];
  }
  if (DATE_ONLY.test(value)) return Number.isNaN(Date.parse(value)) ? undefined : dayStart(value);
  if (DATE_TIME.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

export interface MeetingsRequest {
  from: number;
  to: number;
  limit: number;
  offset: number;
  category: string | undefined;
  country: string | undefined;
  ids: string[] | undefined;
  params: Record<string, unknown>;
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** Validates a /meetings query; a string is the 400 message. */
export function readMeetingsQuery(
  q: Query,
  now: number,
  all: { from: number; to: number },
): MeetingsRequest | string {
  const dates: Record<'from' | 'to', number> = { from: 0, to: 0 };
  for (const bound of ['from', 'to'] as const) {
    const raw = q[`date_${bound}`] ?? 'today';
    const ms = parseDateParam(raw, now, all, bound);
    if (ms === undefined) {
      return `date_${bound} must be YYYY-MM-DD, ${DATE_KEYWORDS.join(', ')} or an ISO 8601 datetime; got ${JSON.stringify(raw)}`;
    }
    dates[bound] = ms;
  }
  const int = (name: string, fallback: number, min: number) => {
    const raw = q[name];
    if (raw === undefined || raw === '') return fallback;
    return INTEGER.test(raw) && Number(raw) >= min ? Number(raw) : undefined;
  };
  const limit = int('limit', DEFAULT_LIMIT, 1);
  if (limit === undefined)
    return `limit must be an integer from 1 to ${MAX_LIMIT}; got ${JSON.stringify(q.limit)}`;
  const offset = int('offset', 0, 0);
  if (offset === undefined) return `offset must be a non-negative integer; got ${JSON.stringify(q.offset)}`;
  const category = q.category || undefined;
  if (category !== undefined && !CATEGORIES.has(category)) {
    return `category must be one of T, H, G; got ${JSON.stringify(category)}`;
  }
  const ids = q.ids
    ? q.ids
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
  const applied = Math.min(limit, MAX_LIMIT);
  return {
    ...dates,
    limit: applied,
    offset,
    category,
    country: q.country || undefined,
    ids,
    params: {
      enc: q.enc ?? 'json',
      ids: ids ?? null,
      date_from: iso(dates.from),
      date_to: iso(dates.to),
      type: category ?? ' ',
      country: q.country || ' ',
      limit: applied,
      offset,
      futures: q.futures === 'true',
      meeting_numbers: null,
    },
  };
}

/** The limit a `limit_clamped` fault applies, whatever was asked. */
export const CLAMPED_LIMIT = 30;

/**
 * A /meetings request as a faulty upstream answers it, for the echo faults (everything else unchanged):
 * - `echo_minimal`: `params` holds only `enc`, `date_from` and `date_to`;
 * - `limit_clamped`: at most CLAMPED_LIMIT meetings, and the echo says so;
 * - `offset_ignored`: the first page again, echoing the offset asked;
 * - `date_other_zone`: the dates echoed as New Zealand midnight in UTC (the day before, 11:00Z), the
 *   meetings those asked;
 * - `wrong_day`: the meetings of the next day, echoing the dates asked.
 */
export function faultedMeetingsRequest(req: MeetingsRequest, fault: FaultKind | undefined): MeetingsRequest {
  const { params } = req;
  switch (fault) {
    case 'echo_minimal':
      return { ...req, params: { enc: params.enc, date_from: params.date_from, date_to: params.date_to } };
    case 'limit_clamped': {
      const limit = Math.min(req.limit, CLAMPED_LIMIT);
      return { ...req, limit, params: { ...params, limit } };
    }
    case 'offset_ignored':
      return { ...req, offset: 0 };
    case 'date_other_zone':
      return {
        ...req,
        params: { ...params, date_from: iso(req.from - 13 * HOUR), date_to: iso(req.to - 13 * HOUR) },
      };
    case 'wrong_day':
      return { ...req, from: req.from + DAY, to: req.to + DAY };
    default:
      return req;
  }
}

/** The meetings a request selects, ordered by first start, before paging. */
export function selectMeetings(candidates: MeetingStatic[], req: MeetingsRequest): MeetingStatic[] {
  const ids = req.ids ? new Set(req.ids) : undefined;
  return candidates
    .filter(
      (m) =>
        (!req.category || m.category === req.category) &&
        (!req.country || m.country === req.country) &&
        (!ids || ids.has(m.id)),
    )
    .sort((a, b) => a.firstStart - b.firstStart || a.date - b.date || a.index - b.index);
}
