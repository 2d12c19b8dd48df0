/**
 * The single-node backends: an in-process bus, leadership that is always this node's, an in-process request
 * window (with `sqlite` against the racing API, one kept in DATA_DIR across restarts), and the event log with
 * the webhook outbox in one SQLite database (a file for `sqlite`, memory for `memory`, whose event log is the
 * in-memory adapter).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createMemoryBus } from '../bus/bus.js';
import { noSync } from '../cluster/cluster-sync.js';
import { alwaysLeader } from '../cluster/leadership.js';
import { secretCodec } from '../delivery/webhooks/secret-codec.js';
import { createSqliteOutbox } from '../delivery/webhooks/sqlite/outbox.js';
import {
  createMemoryEventLog,
  createSqliteEventLog,
  type Database,
  databasePath,
  type EventLog,
  openDatabase,
} from '../store/index.js';
import { createDurableRateWindow } from '../upstream/durable-rate-window.js';
import { createMemoryRateWindow } from '../upstream/memory-rate-window.js';
import type { RateWindow } from '../upstream/rate-window.js';
import { fileWindowCheckpoint } from '../upstream/window-checkpoint.js';
import type { Backend, BackendFactory, BackendOptions, Driver } from './ports.js';
import { watchWrites } from './write-health.js';

export const defaultNodeId = () => `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

function singleNode(
  driver: Driver,
  opts: BackendOptions,
  parts: { log: EventLog; db: Database; window: RateWindow },
): Backend {
  const { config, wallClock, logger } = opts;
  const { db } = parts;
  const nodeId = config.NODE_ID ?? defaultNodeId();
  const leadership = alwaysLeader(logger);
  const outbox = createSqliteOutbox(db, {
    now: () => wallClock.now(),
    secrets: secretCodec(config.SECRETS_KEY),
  });
  // The probe writes one row of the outbox's state table: the same database file as the log.
  const probeWrite = db.prepare(`INSERT INTO webhook_state (key, value) VALUES ('write_probe', ?)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  const writes = watchWrites({
    log: parts.log,
    probe: async () => void probeWrite.run(String(wallClock.now())),
    clock: wallClock,
    logger,
  });
  const { log } = writes;
  return {
    driver,
    distributed: false,
    nodeId,
    log,
    bus: createMemoryBus((err) => logger.error({ err }, 'bus listener failed')),
    webhookStore: { outbox, feed: log.feed },
    leadership,
    requestWindow: writes.gate(parts.window),
    subscribers: (local) => local,
    clusterSync: () => noSync,
    readiness: () => [writes.readiness],
    status: () => ({ node: nodeId, leader: leadership.isLeader(), redisUp: false }),
    async close() {
      await leadership.close();
      writes.close();
      await log.close();
      db.close();
    },
  };
}

/** Nothing survives the process: the log in memory, the outbox in an in-memory SQLite database. */
export const memoryBackend: BackendFactory = async (opts) =>
  singleNode('memory', opts, {
    log: createMemoryEventLog({ window: opts.config.EVENT_LOG_WINDOW }),
    db: openDatabase(':memory:'),
    window: createMemoryRateWindow({ maxPerMinute: opts.config.RACING_API_MAX_RPM, clock: opts.clock }),
  });

/** Everything in `DATA_DIR/racewire.db`: the log, its feed and the outbox, so one transaction spans them. */
export const sqliteBackend: BackendFactory = async (opts) => {
  const db = openDatabase(databasePath(opts.config.DATA_DIR));
  return singleNode('sqlite', opts, {
    log: createSqliteEventLog({ db, window: opts.config.EVENT_LOG_WINDOW }),
    db,
    window: await requestWindow(opts),
  });
};

/**
 * The racing API outlives this process, and counts its requests on its own (wall) time: its window is kept in
 * DATA_DIR so that a restart spends only what is left of it. The embedded simulator and a replay restart
 * with the process, their own windows empty, so theirs stays in memory on race time (the budget is per
 * simulated minute, docs/operations.md).
 */
async function requestWindow(opts: BackendOptions): Promise<RateWindow> {
  const { config } = opts;
  if (config.RACING_API_URL === undefined)
    return createMemoryRateWindow({ maxPerMinute: config.RACING_API_MAX_RPM, clock: opts.clock });
  return createDurableRateWindow({
    maxPerMinute: config.RACING_API_MAX_RPM,
    clock: opts.wallClock,
    checkpoint: fileWindowCheckpoint(config.DATA_DIR, opts.logger),
    logger: opts.logger,
  });
}
