/**
 * A gateway for fan-out benchmarks: no catalog, the system clock, anonymous access, and limits (connections
 * per key, message rates, heartbeats, pings) out of the way, so that the load measures delivery alone. With
 * `sse`, the SSE endpoint serves the same hub.
 */
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { Bus } from '../src/bus/bus.js';
import { systemClock } from '../src/clock.js';
import type { AuthConfig } from '../src/delivery/core/auth.js';
import type { RaceCatalog } from '../src/delivery/core/catalog.js';
import { DeliveryHub } from '../src/delivery/core/hub.js';
import type { DeliveryLimits } from '../src/delivery/core/limits.js';
import { registerSseEndpoint } from '../src/delivery/sse/endpoint.js';
import { registerWebSocketGateway } from '../src/delivery/ws/gateway.js';
import type { EventLog } from '../src/store/ports.js';

const noCatalog: RaceCatalog = {
  race: () => undefined,
  racesOfMeeting: () => [],
  staleness: () => undefined,
};

export async function unboundedGateway(
  app: FastifyInstance,
  deps: {
    log: EventLog;
    bus: Bus;
    catalog?: RaceCatalog;
    limits?: Partial<DeliveryLimits>;
    auth?: AuthConfig;
    sse?: boolean;
  },
) {
  const logger = pino({ level: 'silent' });
  const hub = new DeliveryHub({
    log: deps.log,
    bus: deps.bus,
    catalog: deps.catalog ?? noCatalog,
    wall: systemClock,
    logger,
    auth: deps.auth ?? { allowAnonymous: true, keys: new Map() },
    limits: {
      maxConnectionsPerKey: 1_000_000,
      maxSubscriptionsPerKey: 1_000_000,
      messagesPerSecond: 1_000_000,
      messageBurst: 1_000_000,
      heartbeatMs: 600_000,
      ...deps.limits,
    },
  });
  const gateway = await registerWebSocketGateway(app, { hub, logger, limits: { pingIntervalMs: 600_000 } });
  if (deps.sse) await registerSseEndpoint(app, { hub, logger });
  return {
    hub,
    gateway,
    async close() {
      await gateway.close();
      await hub.close();
    },
  };
}
