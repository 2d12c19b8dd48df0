/**
 * Discovery's status (src/watch/schedule/discovery-windows.ts `discoveryStatus`, /readyz's `discovery` check) through
 * the poller against the simulator in-process on a manual clock: a listing of another day fails its day with
 * a code and a message until a later refresh lists it; an ignored offset keeps what was read and raises an
 * alarm.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { discoveryReadiness } from '../../src/http/health.js';
import type { FaultKind } from '../../src/simulator/faults.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import type { DiscoveryAlarm } from '../../src/watch/fetch/meetings-pager.js';
import { createPoller } from '../../src/watch/fetch/poller.js';
import type { Pick, SchedulerInput } from '../../src/watch/schedule/scheduler.js';

const NOW = Date.parse('2026-11-22T09:00:00Z');
const DAYS = ['2026-11-21', '2026-11-22', '2026-11-23'];

const discoveryOnly = (input: SchedulerInput): Pick =>
  !input.discoveryInFlight && input.now >= input.discoveryDueAt
    ? { kind: 'discovery' }
    : { kind: 'idle', until: input.discoveryDueAt };

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setup(fault: FaultKind, count: number, pageSize = 200) {
  const clock = createManualClock(NOW);
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  sim = await createSimulator({ seed: 3, clock, rateLimit: false });
  sim.faults.inject({ kind: fault, count, path: /\/meetings$/ });
  const client = createRacingClient({
    baseUrl: 'http://sim.test/affiliates/v1/racing',
    limiter: createRateLimiter({ maxPerMinute: 1000, clock }),
    clock,
    fetch: createInProcessFetch(sim).fetch,
  });
  const alarms: DiscoveryAlarm[] = [];
  const poller = createPoller({
    source: { meetings: (q, ro) => client.meetings(q, ro), event: async () => ({}) as EventResponse },
    onEvent: async () => ({ kind: 'unchanged' }),
    onDiscoveryAlarm: (alarm) => alarms.push(alarm),
    clock,
    logger,
    subscribers: () => new Map(),
    discoveryIntervalMs: 6_000,
    discoveryPageSize: pageSize,
    strategy: discoveryOnly,
  });
  return { clock, poller, alarms, logs };
}

describe('discovery status', () => {
  it('fails each day answered by another day’s meetings, with the code and message, until it lists it', async () => {
    const { clock, poller } = await setup('wrong_day', 3);
    const readiness = discoveryReadiness(() => poller.discovery());
    poller.start();
    await clock.advance(0);
    const failing = poller.discovery();
    expect(failing.ok).toBe(false);
    expect(failing.alarms).toEqual([]);
    expect(failing.failing.map((f) => [f.date, f.code, f.failures, f.failedAt])).toEqual(
      DAYS.map((date) => [date, 'DISCOVERY_WRONG_DAY', 1, new Date(NOW).toISOString()]),
    );
    expect(failing.failing[1]?.message).toMatch(
      /^\/meetings for 2026-11-22 at offset 0 answered with meeting \S+ dated 2026-11-23T00:00:00Z: it cannot be that day$/,
    );
    expect(poller.races().size).toBe(0);
    expect(await readiness.check()).toEqual({
      ok: false,
      detail: { polling: true, failing: failing.failing, alarms: [] },
    });

    // The fault is spent: the retry (after 12 s, twice the live interval) lists every day.
    await clock.advance(12_000);
    await poller.stop();
    expect(poller.discovery()).toEqual({ ok: true, failing: [], alarms: [] });
    expect(poller.races().size).toBeGreaterThan(0);
    expect(await readiness.check()).toEqual({ ok: true, detail: { polling: true, failing: [], alarms: [] } });
  });

  it('keeps what an ignored offset let it read, and shows the alarm without failing', async () => {
    const { clock, poller, alarms, logs } = await setup('offset_ignored', 1_000, 50);
    poller.start();
    await clock.advance(0);
    await poller.stop();
    const status = poller.discovery();
    expect(status.ok).toBe(true);
    expect(status.alarms.map((a) => [a.date, a.code, a.refreshedAt])).toEqual(
      DAYS.map((date) => [date, 'DISCOVERY_OFFSET_IGNORED', new Date(NOW).toISOString()]),
    );
    expect(alarms.map((a) => a.date)).toEqual(DAYS);
    expect(logs.filter((l) => l.code === 'DISCOVERY_OFFSET_IGNORED')).toEqual(
      alarms.map((a) => expect.objectContaining({ level: 40, date: a.date, msg: a.message })),
    );
    expect(await discoveryReadiness(() => status).check()).toEqual({
      ok: true,
      detail: { polling: true, failing: [], alarms: status.alarms },
    });
    expect(await discoveryReadiness(() => undefined).check()).toEqual({
      ok: true,
      detail: { polling: false },
    });
    // The first page of each day (50 meetings) was applied.
    expect(new Set([...poller.races().values()].map((r) => r.meetingId)).size).toBe(150);
  });
});
