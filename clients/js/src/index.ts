export type { FirehoseFilter, ServerMessage, StreamPosition } from '../../../src/delivery/ws/messages.js';
export { CloseCode, shouldReconnect } from '../../../src/delivery/ws/messages.js';
export type { RaceEvent } from '../../../src/events/envelope.js';
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
