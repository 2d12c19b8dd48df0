/**
 * Does a /meetings response answer the request that was sent? The envelope's `params` echoes what the
 * server understood (the real list echoes `date_from`/`date_to` as datetimes, the category as `type`, and
 * `limit`/`offset` as numbers). A page of another query (other dates, a clamped limit, an ignored offset)
 * would silently hide meetings, so it is an error, not data. Pure.
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

/** Date keywords of the official description: their echo is the server's own instant, not comparable. */
const DATE_KEYWORDS = new Set(['today', 'week', 'month', 'all']);

/** The mismatches between what was asked and what `params` echoes; empty when the response answers it. */
export function meetingsEchoMismatches(asked: AskedMeetings, params: unknown): Mismatch[] {
  if (!params || typeof params !== 'object') return [{ name: 'params', asked: 'an echo', echoed: params }];
  const echoed = params as Record<string, unknown>;
  const out: Mismatch[] = [];
  for (const name of ['date_from', 'date_to'] as const) {
    const value = asked[name];
    if (DATE_KEYWORDS.has(value)) continue;
    // `2025-07-17` is echoed as a datetime of that day (`2025-07-17T00:00:00Z`).
    const echo = echoed[name];
    if (typeof echo !== 'string' || echo.slice(0, 10) !== value.slice(0, 10)) {
      out.push({ name, asked: value, echoed: echo });
    }
  }
  for (const name of ['limit', 'offset'] as const) {
    const value = asked[name];
    if (value !== undefined && asNumber(echoed[name]) !== value) {
      out.push({ name, asked: value, echoed: echoed[name] });
    }
  }
  if (asked.country !== undefined && echoed.country !== asked.country) {
    out.push({ name: 'country', asked: asked.country, echoed: echoed.country });
  }
  if (asked.category !== undefined && echoed.type !== asked.category) {
    out.push({ name: 'category', asked: asked.category, echoed: echoed.type });
  }
  return out;
}

const asNumber = (value: unknown): number | undefined => {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && value.trim() !== '' ? Number(value) : undefined;
};
