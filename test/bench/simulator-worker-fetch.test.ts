/**
 * The soak's simulator in a worker thread answers as the embedded simulator on the caller's thread does at
 * the same race time: same status, headers and body bytes, for /meetings and /events (issue 23).
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  type SimulatorWorkerFetch,
  startSimulatorWorker,
} from '../../bench/support/simulator-worker-fetch.js';
import { createManualClock } from '../../src/clock.js';
import { embeddedSimulatorOptions } from '../../src/runtime.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator } from '../../src/simulator/index.js';

const BASE = 'http://sim/affiliates/v1/racing';
const FROM = Date.parse('2026-11-19T17:00:00Z');

/** Status, headers and body bytes; not the Date header, which is the wall time the answer was written at. */
async function answer(res: Response) {
  const headers: Array<[string, string]> = [];
  res.headers.forEach((value, name) => {
    if (name !== 'date') headers.push([name, value]);
  });
  return {
    status: res.status,
    headers,
    body: Buffer.from(await res.arrayBuffer()).toString('base64'),
  };
}

describe('the soak’s simulator worker', () => {
  const clock = createManualClock(FROM);
  const options = embeddedSimulatorOptions({ SIMULATOR_SEED: 1, RACING_API_MAX_RPM: 100 }, FROM);
  let worker: SimulatorWorkerFetch | undefined;
  afterAll(() => worker?.close());

  it('answers /meetings and /events with the in-process simulator’s bytes at the same race time', async () => {
    const sim = await createSimulator({ ...options, clock });
    const inProcess = createInProcessFetch(sim);
    worker = await startSimulatorWorker({ ...options, clock });
    await clock.advance(95 * 60_000);

    const meetingsUrl = `${BASE}/meetings?date_from=2026-11-19&date_to=2026-11-20`;
    const meetings = await answer(await inProcess.fetch(meetingsUrl));
    expect(meetings.status).toBe(200);
    expect(await answer(await worker.fetch(meetingsUrl))).toEqual(meetings);

    // A race still open at that time: its event payload carries the moving odds.
    const races: Array<{ id: string; status: string }> = JSON.parse(
      Buffer.from(meetings.body, 'base64').toString(),
    ).data.meetings.flatMap((m: { races: unknown[] }) => m.races);
    const raceId = races.find((r) => r.status === 'Open')?.id;
    expect(raceId).toBeDefined();
    const eventUrl = `${BASE}/events/${raceId}`;
    const event = await answer(await inProcess.fetch(eventUrl));
    expect(event.status).toBe(200);
    expect(await answer(await worker.fetch(eventUrl))).toEqual(event);
    await sim.close();
  });
});
