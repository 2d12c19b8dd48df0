/**
 * The protocol alone (`@racewire/client/protocol`): message types, the event envelope and every event
 * payload, plus a few constants. No run-time dependencies, so the server imports it without the client.
 */
export * from './envelope.js';
export * from './event-types.js';
export * from './messages.js';
export * from './rest-views.js';
