/** The upstream racing API: client, shared rate limiter, typed errors, response metadata. */
export {
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
} from './backoff.js';
export {
  createRacingClient,
  type EventOptions,
  type MeetingsQuery,
  type RacingClient,
  type RacingClientOptions,
  type RequestOptions,
  type UpstreamHeaders,
} from './client.js';
export * from './errors.js';
export {
  createRateLimiter,
  LimiterClosedError,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimiterStats,
  type ScheduleOptions,
} from './rate-limiter.js';
export {
  type RateLimitInfo,
  RESPONSE_META,
  type ResponseMeta,
  responseMeta,
  type WithMeta,
} from './response-meta.js';
