/**
 * A `fetch` that hands every response it receives, with its request, to a recorder, and returns the same
 * response to the caller. The body is read here (inside the caller's timeout, as the client would read it)
 * and passed on unchanged. Request headers are not recorded; recording never fails the request.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { FetchLike } from '../upstream/transport.js';
import { KEPT_HEADERS, type RecordedExchange, sortedQuery } from './exchange.js';

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

export function recordingFetch(opts: {
  fetch: FetchLike;
  /** Base URL of the racing API; recorded paths are relative to it. */
  baseUrl: string;
  clock: Clock;
  record: (exchange: RecordedExchange) => void;
  logger: Logger;
}): FetchLike {
  const basePath = new URL(opts.baseUrl).pathname.replace(/\/+$/, '');
  return async (url, init) => {
    const res = await opts.fetch(url, init);
    const body = await res.text();
    try {
      const u = new URL(url);
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = res.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      opts.record({
        at: opts.clock.now(),
        method: init.method ?? 'GET',
        path: u.pathname.startsWith(basePath) ? u.pathname.slice(basePath.length) : u.pathname,
        query: sortedQuery(u.searchParams),
        status: res.status,
        headers,
        body,
      });
    } catch (err) {
      opts.logger.error({ err }, 'recording an upstream response failed');
    }
    return new Response(NULL_BODY.has(res.status) ? null : body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
