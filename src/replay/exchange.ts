/**
 * One recorded upstream exchange: the request racewire sent (method, operation path, query) and the response
 * it got (status, the few headers that matter, the body exactly as received), stamped with its arrival time
 * on the race clock. A recording is these, one JSON object a line. Request headers are never recorded: they
 * carry the API key and the identification headers.
 */

export interface RecordedExchange {
  /** Arrival time of the whole response, epoch ms on the race clock (the wall clock against the real API). */
  at: number;
  method: string;
  /** Operation path without the base URL, e.g. `/events/0f57e087-...`. */
  path: string;
  /** The query as sent, keys sorted. */
  query: Record<string, string>;
  status: number;
  /** Response headers a client acts on (KEPT_HEADERS), lower-case names. */
  headers: Record<string, string>;
  /** The body, byte for byte as text. */
  body: string;
}

/** Response headers worth replaying: the body's type, and what the limiter reads. Nothing that identifies. */
export const KEPT_HEADERS = [
  'content-type',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
] as const;

/** The query with its keys sorted: two requests that differ only in parameter order are the same request. */
export function sortedQuery(params: URLSearchParams | Record<string, string>): Record<string, string> {
  const entries = params instanceof URLSearchParams ? [...params] : Object.entries(params);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** What a request is, for replay: `GET /events/x?enc=json&with_will_pays=true`. */
export function requestKey(method: string, path: string, query: Record<string, string>): string {
  const search = new URLSearchParams(sortedQuery(query)).toString();
  return `${method.toUpperCase()} ${path}${search ? `?${search}` : ''}`;
}

/** One line of a recording (without its newline); the time as ISO 8601, the body last (it is most of it). */
export function toLine(e: RecordedExchange): string {
  const at = new Date(e.at).toISOString();
  return JSON.stringify({
    at,
    method: e.method,
    path: e.path,
    query: e.query,
    status: e.status,
    headers: e.headers,
    body: e.body,
  });
}

/** Reads one line back; undefined for anything that is not a well-formed exchange (a torn last line). */
export function parseLine(line: string): RecordedExchange | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const at = typeof r.at === 'string' ? Date.parse(r.at) : Number.NaN;
  const strings = (v: unknown): v is Record<string, string> =>
    !!v && typeof v === 'object' && Object.values(v).every((x) => typeof x === 'string');
  if (
    !Number.isFinite(at) ||
    typeof r.method !== 'string' ||
    typeof r.path !== 'string' ||
    !strings(r.query) ||
    !Number.isInteger(r.status) ||
    !strings(r.headers) ||
    typeof r.body !== 'string'
  ) {
    return undefined;
  }
  return {
    at,
    method: r.method,
    path: r.path,
    query: r.query,
    status: r.status as number,
    headers: r.headers,
    body: r.body,
  };
}
