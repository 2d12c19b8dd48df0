export {
  DEFAULT_SSE_LIMITS,
  registerSseEndpoint,
  type SseDeps,
  type SseEndpoint,
  type SseLimits,
  type SseStats,
} from './endpoint.js';
export { formatEventId, parseEventId } from './event-id.js';
