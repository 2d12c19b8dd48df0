/**
 * The last resort for a promise that rejected with no handler. Every Redis and I/O path handles its own
 * failures (docs/operations.md, "Redis away"); one that slipped through is logged with a code (so the nemesis
 * and operators find it) instead of ending a node that still serves.
 */
import type { EventEmitter } from 'node:events';
import type { Logger } from './logger.js';

export function logUnhandledRejections(logger: Logger, target: Pick<EventEmitter, 'on'> = process): void {
  target.on('unhandledRejection', (err: unknown) =>
    logger.error({ err, code: 'unhandled_rejection' }, 'a promise rejected with no handler'),
  );
}
