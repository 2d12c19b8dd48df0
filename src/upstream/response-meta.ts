/**
 * What the scheduler and metrics want to know about each response besides its body: status, latency, attempts
 * and the rate-limit headers the server sent. Parsing here is pure and defensive (headers are untrusted).
 */

/** Rate-limit facts read from `X-RateLimit-*` and `Retry-After` headers; absent members were not sent. */
export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
  /** Milliseconds from the response until the server's window resets. */
  resetMs?: number;
  /** Milliseconds the server asked us to wait (`Retry-After`). */
  retryAfterMs?: number;
}

export interface ResponseMeta {
  /** Operation path without the base URL and query, e.g. `/events/abc`. */
  path: string;
  /** HTTP status of the last attempt; undefined when no response arrived (timeout, network). */
  status: number | undefined;
  /** Time from sending the last attempt to having its whole body, on the injected clock. */
  latencyMs: number;
  /** Attempts made, including the first (1 = no retry). */
  attempts: number;
  rateLimit: RateLimitInfo;
  /** `header.generated_time` of the body, when present. */
  generatedTime?: string;
}

/** Where the metadata hides on a result: a symbol, so JSON, diffs and Object.keys never see it. */
export const RESPONSE_META: unique symbol = Symbol('racewire.upstream.responseMeta');

export type WithMeta<T> = T & { readonly [RESPONSE_META]: ResponseMeta };

export function attachMeta<T extends object>(value: T, meta: ResponseMeta): WithMeta<T> {
  Object.defineProperty(value, RESPONSE_META, { value: meta, enumerable: false });
  return value as WithMeta<T>;
}

/** The metadata of a result the racing client returned (undefined for any other object). */
export function responseMeta(value: unknown): ResponseMeta | undefined {
  if (!value || typeof value !== 'object') return undefined;
  return (value as { [RESPONSE_META]?: ResponseMeta })[RESPONSE_META];
}

interface HeaderSource {
  get(name: string): string | null;
}

const nonNegative = (raw: string | null): number | undefined => {
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** Servers send Reset as seconds-until or as an epoch (seconds or ms); this tells them apart. */
function resetToMs(value: number, nowMs: number): number {
  if (value > 1e12) return Math.max(0, value - nowMs); // epoch ms
  if (value > 1e9) return Math.max(0, value * 1000 - nowMs); // epoch seconds
  return value * 1000; // seconds from now
}

/** `Retry-After` is either delta-seconds or an HTTP date. */
export function parseRetryAfter(raw: string | null, nowMs: number): number | undefined {
  if (raw === null) return undefined;
  const seconds = nonNegative(raw);
  if (seconds !== undefined) return seconds * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export function parseRateLimitHeaders(headers: HeaderSource, nowMs: number): RateLimitInfo {
  const info: RateLimitInfo = {};
  const limit = nonNegative(headers.get('x-ratelimit-limit'));
  const remaining = nonNegative(headers.get('x-ratelimit-remaining'));
  const reset = nonNegative(headers.get('x-ratelimit-reset'));
  const retryAfter = parseRetryAfter(headers.get('retry-after'), nowMs);
  if (limit !== undefined) info.limit = Math.floor(limit);
  if (remaining !== undefined) info.remaining = Math.floor(remaining);
  if (reset !== undefined) info.resetMs = resetToMs(reset, nowMs);
  if (retryAfter !== undefined) info.retryAfterMs = retryAfter;
  return info;
}
