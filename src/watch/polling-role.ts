/**
 * The polling role: race and meeting pipelines and the poller, built fresh each time the role starts. On one
 * node it starts once; with several nodes it runs only while this node holds the lease, and a fresh start
 * after a takeover loads each race's last document from the shared log, so the new leader continues the
 * diff where the old one stopped (no cached document of an earlier term can survive into the next).
 */
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { EventLog } from '../store/ports.js';
import type { EventOptions } from '../upstream/client.js';
import type { DroppedRow } from '../upstream/schemas.js';
import type { MarketThresholds } from './detect/market-thresholds.js';
import { handedOver } from './fetch/handed-over.js';
import type { DiscoveryAlarm } from './fetch/meetings-pager.js';
import {
  createPoller,
  type HandedOver,
  type Poller,
  type RaceSource,
  type RaceView,
} from './fetch/poller.js';
import {
  type ConditionalEventSource,
  createUnchangedSkip,
  type UnchangedSkip,
} from './fetch/unchanged-skip.js';
import type { FreshnessSettings } from './schedule/poll-policy.js';
import { pickNext } from './schedule/scheduler.js';
import { createMeetingPipeline } from './track/meeting-pipeline.js';
import { createRacePipeline } from './track/race-pipeline.js';
import type { RaceStateLimits } from './track/race-states.js';
import type { RaceWatch } from './track/race-watch.js';
import type { RaceOutcome } from './track/track-race.js';

export interface PollingRoleDeps {
  /** With `eventIfChanged` (the racing client), payloads whose data did not change are not processed. */
  source: RaceSource & Partial<ConditionalEventSource>;
  log: EventLog;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  subscribers: () => ReadonlyMap<string, number>;
  discoveryIntervalMs: number;
  /** The optional /events members to ask for (market-data.ts); default none. */
  eventOptions?: (race: RaceWatch, now: number) => EventOptions;
  /** Market event thresholds; default market-thresholds.ts. */
  market?: MarketThresholds;
  /** Bounds of the race state the pipeline keeps in memory (race-states.ts). */
  raceStates?: RaceStateLimits;
  /** The budget's slices (SCHEDULER_*_SCRATCHING_*). @default DEFAULT_SETTINGS */
  freshness?: FreshnessSettings;
  /** Every race payload's outcome (metrics). */
  onOutcome?: (outcome: RaceOutcome) => void;
  /** Rows dropped from /meetings pages (metrics). */
  onDroppedRows?: (rows: DroppedRow[]) => void;
  /** A day's listing stopped early with an alarm, keeping what it read (metrics). */
  onDiscoveryAlarm?: (alarm: DiscoveryAlarm) => void;
  /**
   * The leader's races, listed days and fetches as every node sees them (a Redis deployment's shared view): a
   * new term starts with its predecessor's races and days and knows which it fetched lately (handed-over.ts).
   */
  handedOver?: RaceView;
}

export interface PollingRole {
  /** Starts polling with fresh pipelines; no-op while running. Serialised with stop(). */
  start(): Promise<void>;
  /** Stops polling and waits for fetches in flight to settle; no-op while stopped. */
  stop(): Promise<void>;
  /** The running poller, or undefined while stopped. */
  poller(): Poller | undefined;
  /** The running poller's unchanged-payload skip, when the source supports it. */
  unchangedSkip(): UnchangedSkip | undefined;
}

export function createPollingRole(deps: PollingRoleDeps): PollingRole {
  let current: Poller | undefined;
  let skip: UnchangedSkip | undefined;
  // Leadership can flap faster than a stop completes: each transition waits for the one before.
  let chain: Promise<void> = Promise.resolve();
  const serial = (step: () => Promise<void>) => {
    chain = chain.then(step, step);
    return chain;
  };

  const build = (previous: HandedOver | undefined): Poller => {
    // Fresh with each start: a new term diffs from the log's documents, so no state (nor digest) carries over.
    const racePipeline = createRacePipeline({
      log: deps.log,
      bus: deps.bus,
      clock: deps.clock,
      logger: deps.logger.child({ component: 'pipeline' }),
      market: deps.market,
      limits: deps.raceStates,
    });
    skip = isConditional(deps.source) ? createUnchangedSkip(deps.source, racePipeline) : undefined;
    const meetingPipeline = createMeetingPipeline({ log: deps.log, bus: deps.bus, clock: deps.clock });
    return createPoller({
      source: deps.source,
      clock: deps.clock,
      logger: deps.logger.child({ component: 'poller' }),
      onEvent: async (raceId, payload, digest) => {
        const outcome = await racePipeline.process(raceId, payload, digest);
        deps.onOutcome?.(outcome);
        return outcome;
      },
      onMeetings: (meetings) => meetingPipeline.process(meetings),
      onDroppedRows: deps.onDroppedRows,
      onDiscoveryAlarm: deps.onDiscoveryAlarm,
      subscribers: deps.subscribers,
      discoveryIntervalMs: deps.discoveryIntervalMs,
      eventOptions: deps.eventOptions,
      unchangedSkip: skip,
      strategy: (input) => pickNext(input, deps.freshness),
      handedOver: previous,
    });
  };

  return {
    start: () =>
      serial(async () => {
        if (current) return;
        // Unreadable (Redis away): the term starts knowing nothing, as every term did before.
        const previous = deps.handedOver
          ? await handedOver(deps.handedOver, deps.log, deps.clock.now()).catch(() => undefined)
          : undefined;
        current = build(previous);
        current.start();
      }),
    stop: () =>
      serial(async () => {
        const poller = current;
        current = undefined;
        await poller?.stop();
      }),
    poller: () => current,
    unchangedSkip: () => skip,
  };
}

const isConditional = (source: Partial<ConditionalEventSource>): source is ConditionalEventSource =>
  typeof source.eventIfChanged === 'function';
