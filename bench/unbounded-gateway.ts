/**
 * Gateway settings for fan-out benchmarks: no catalog, the system clock, anonymous access, and limits
 * (connections per key, message rates, heartbeats) out of the way, so that the load measures delivery alone.
 */
import { pino } from 'pino';
import { systemClock } from '../src/clock.js';

export const unboundedGateway = {
  catalog: { race: () => undefined, racesOfMeeting: () => [], staleness: () => undefined },
  clock: systemClock,
  logger: pino({ level: 'silent' }),
  auth: { allowAnonymous: true, keys: new Map() },
  limits: {
    maxConnectionsPerKey: 1_000_000,
    messagesPerSecond: 1_000_000,
    messageBurst: 1_000_000,
    heartbeatMs: 600_000,
    pingIntervalMs: 600_000,
  },
};
