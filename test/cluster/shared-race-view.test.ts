import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock } from '../../src/clock.js';
import type { Freshness } from '../../src/cluster/cluster-state.js';
import { createSharedRaceView } from '../../src/cluster/shared-race-view.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import type { Meeting } from '../../src/upstream/schemas.js';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/upstream/meetings-small.json', import.meta.url), 'utf8'),
) as { data: { meetings: Meeting[] } };
const meeting = fixture.data.meetings[0]!;

/** A view over a fresh memory log and bus, on a manual clock at `at`; errors fail the test. */
function viewAt(at: string, freshness: () => Freshness | undefined = () => undefined) {
  const log = createMemoryEventLog();
  const bus = createMemoryBus();
  const clock = createManualClock(Date.parse(at));
  const view = createSharedRaceView({
    log,
    bus,
    clock,
    freshness,
    onError: (e) => {
      throw e;
    },
  });
  return { log, bus, clock, view };
}

describe('shared race view', () => {
  it("lists the leader's races from the meeting documents and follows them on the bus", async () => {
    let freshness: Freshness | undefined;
    const { log, bus, clock, view } = viewAt('2025-07-16T15:00:00Z', () => freshness);
    const stream = `meeting:${meeting.meeting}`;
    await log.append(stream, {
      entries: [{ kind: 'snapshot', document: meeting }],
      document: meeting,
      now: new Date(clock.now()),
    });
    await view.refresh();
    const first = meeting.races[0]!;
    expect(view.races().size).toBe(meeting.races.length);
    expect(view.races().get(first.id)).toMatchObject({ meetingId: meeting.meeting, status: first.status });

    // The leader writes a status change; the follower sees it from the bus, without a refresh.
    const changed = {
      ...meeting,
      races: meeting.races.map((r, i) => (i === 0 ? { ...r, status: 'Abandoned' } : r)),
    };
    bus.publish(
      await log.append(stream, {
        entries: [{ kind: 'snapshot', document: changed }],
        document: changed,
        now: new Date(clock.now()),
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(view.races().get(first.id)?.status).toBe('Abandoned');

    expect(view.staleness(first.id)).toBeUndefined();
    freshness = {
      leader: 'a',
      discoveredAt: clock.now() - 2_000,
      lastGoodAt: { [first.id]: clock.now() - 5_000 },
      days: [
        { date: '2025-07-17', refreshedAt: clock.now() - 2_000, raceIds: [first.id], listedSettled: false },
      ],
    };
    expect(view.staleness(first.id)).toBe(5_000);
    expect(view.lastDiscoveryAt()).toBe(clock.now() - 2_000);
    expect(view.listedDays()).toEqual(freshness.days);
    view.close();
  });

  it('lets a meeting go once its date is before yesterday, as the day windows do', async () => {
    // The fixture's meetings are dated 2025-07-17.
    const { log, bus, clock, view } = viewAt('2025-07-17T09:00:00Z');
    const write = async (m: Meeting) =>
      bus.publish(
        await log.append(`meeting:${m.meeting}`, {
          entries: [{ kind: 'snapshot', document: m }],
          document: m,
          now: new Date(clock.now()),
        }),
      );
    await write(meeting);
    await view.refresh();
    const old = meeting.races.map((r) => r.id);
    expect([...view.races().keys()]).toEqual(old);

    // A day later the meeting is yesterday's: still listed.
    await clock.advance(86_400_000);
    const next = fixture.data.meetings[1]!;
    const today = { ...next, date: '2025-07-18T00:00:00Z' };
    await write(today);
    await new Promise((r) => setImmediate(r));
    expect([...view.races().keys()]).toEqual([...old, ...today.races.map((r) => r.id)]);

    // Two days later it is before yesterday: gone at the next batch, and a refresh, which reads every
    // meeting the log still holds, does not bring it back.
    await clock.advance(86_400_000);
    await write({ ...today, races: today.races.map((r) => ({ ...r, status: 'Final' })) });
    await new Promise((r) => setImmediate(r));
    expect([...view.races().keys()]).toEqual(today.races.map((r) => r.id));
    await view.refresh();
    expect([...view.races().keys()]).toEqual(today.races.map((r) => r.id));
    view.close();
  });
});
