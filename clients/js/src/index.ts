export { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
export {
  type ClientEvents,
  type ClientOptions,
  RacewireClient,
  type StreamCopy,
  type WebSocketFactory,
  type WebSocketLike,
} from './client.js';
export { applyPatchAtomic, type PatchResult } from './patch.js';
export * from './protocol.js';
