import { describe, expect, it, vi } from 'vitest';
import { createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock } from '../../src/clock.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import type { Meeting } from '../../src/upstream/schemas.js';
import { createMeetingPipeline, MEETING_IDLE_MS } from '../../src/watch/track/meeting-pipeline.js';

// biome-ignore lint/suspicious/noExplicitAny: reading event payloads loosely
type Loose = any;

const race = (n: number, status = 'Open') => ({
  id: `race-${n}`,
  race_number: n,
  name: `Race ${n}`,
  start_time: `2025-07-17T0${n}:00:00Z`,
  status,
});
const meeting = (races: ReturnType<typeof race>[]): Meeting => ({
  meeting: 'm1',
  name: 'Awapuni',
  date: '2025-07-17T00:00:00Z',
  category: 'T',
  country: 'NZ',
  races,
});

function harness(maxMeetings?: number) {
  const log = createMemoryEventLog();
  const bus = createMemoryBus();
  const seen: LogEntry[] = [];
  bus.subscribe((entries) => seen.push(...entries));
  const clock = createManualClock(Date.parse('2025-07-17T00:00:00Z'));
  const pipeline = createMeetingPipeline({ log, bus, clock, maxMeetings });
  return { log, pipeline, seen, clock };
}

const eventsOf = (entries: LogEntry[]) =>
  entries.flatMap((e) => (e.kind === 'event' ? [[e.event.type, (e.event.data as Loose).race?.raceId]] : []));

describe('meeting pipeline', () => {
  it('keeps no undefined member in its documents: the same list with one is no change', async () => {
    const { log, pipeline, seen } = harness();
    await pipeline.process([{ ...meeting([race(1)]), track_condition: undefined } as Meeting]);
    await pipeline.process([meeting([race(1)])]);
    expect(seen.map((e) => e.kind)).toEqual(['snapshot']);
    expect(Object.keys((await log.head('meeting:m1')).document as object)).not.toContain('track_condition');
  });

  it('snapshots a meeting on first sight, then patches it with meeting events, and skips unchanged lists', async () => {
    const { log, pipeline, seen } = harness();
    await pipeline.process([meeting([race(1), race(2)])]);
    await pipeline.process([meeting([race(1), race(2)])]);
    await pipeline.process([meeting([race(1, 'Closed'), race(2), race(3)])]);

    expect(seen.map((e) => [e.stream, e.seq, e.kind])).toEqual([
      ['meeting:m1', 1, 'snapshot'],
      ['meeting:m1', 2, 'patch'],
      ['meeting:m1', 3, 'event'],
    ]);
    const event = seen[2]!.kind === 'event' ? seen[2]!.event : undefined;
    const head = await log.head('meeting:m1');
    expect(event).toMatchObject({
      type: 'meeting.race_added',
      meetingId: 'm1',
      id: `meeting:m1:3@${head.epoch}`,
    });
    expect(head.document).toEqual(meeting([race(1, 'Closed'), race(2), race(3)]));
  });

  it('diffs against the log after an append whose reply was lost, so no patch has a wrong base', async () => {
    const log = createMemoryEventLog();
    let loseReply = false;
    const flaky = {
      ...log,
      async append(...args: Parameters<typeof log.append>) {
        const stored = await log.append(...args);
        if (loseReply) throw new Error('connection reset after write');
        return stored;
      },
    };
    const pipeline = createMeetingPipeline({
      log: flaky,
      bus: createMemoryBus(),
      clock: createManualClock(0),
    });
    await pipeline.process([meeting([race(1)])]);
    loseReply = true;
    await expect(pipeline.process([meeting([race(1), race(2)])])).rejects.toThrow('connection reset');
    loseReply = false;
    await pipeline.process([meeting([race(1), race(2)])]);
    const read = await log.read('meeting:m1', 0);
    expect(read.ok && read.entries.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'snapshot'],
      [2, 'patch'],
      [3, 'event'],
    ]);
  });

  it('a truncated race list gives no meeting.race_removed and no patch', async () => {
    const { log, pipeline, seen, clock } = harness();
    await pipeline.process([meeting([race(1), race(2), race(3)])]);
    await clock.advance(10_000);
    await pipeline.process([meeting([race(1), race(2)])]);
    await clock.advance(10_000);
    await pipeline.process([meeting([race(1), race(2), race(3)])]);
    expect(seen.map((e) => e.kind)).toEqual(['snapshot']);
    expect((await log.head('meeting:m1')).document).toEqual(meeting([race(1), race(2), race(3)]));
  });

  it('a race gone from three lists over 20 s is removed once', async () => {
    const { pipeline, seen, clock } = harness();
    await pipeline.process([meeting([race(1), race(2), race(3)])]);
    for (let i = 0; i < 4; i++) {
      await clock.advance(10_000);
      await pipeline.process([meeting([race(1), race(2)])]);
    }
    expect(eventsOf(seen)).toEqual([['meeting.race_removed', 'race-3']]);
  });

  it('a race status going back in one list is held', async () => {
    const { pipeline, seen, clock } = harness();
    await pipeline.process([meeting([race(1, 'Final'), race(2)])]);
    await clock.advance(10_000);
    await pipeline.process([meeting([race(1, 'Interim'), race(2)])]);
    await clock.advance(10_000);
    await pipeline.process([meeting([race(1, 'Final'), race(2)])]);
    expect(seen.map((e) => e.kind)).toEqual(['snapshot']);
  });

  it('continues from the stored meeting after a restart without repeating events', async () => {
    const log = createMemoryEventLog();
    const clock = createManualClock(0);
    const first = createMeetingPipeline({ log, bus: createMemoryBus(), clock });
    await first.process([meeting([race(1)])]);
    const second = createMeetingPipeline({ log, bus: createMemoryBus(), clock });
    await second.process([meeting([race(1)])]);
    expect((await log.head('meeting:m1')).seq).toBe(1);
  });

  it('reads a meeting it no longer holds back from the log: the same list gives nothing, a change one patch', async () => {
    const h = harness(1);
    const other = { ...meeting([race(1)]), meeting: 'm2' };
    await h.pipeline.process([meeting([race(1), race(2)])]);
    await h.pipeline.process([other]);
    await h.pipeline.process([meeting([race(1), race(2)])]);
    expect(h.seen.map((e) => [e.stream, e.seq, e.kind])).toEqual([
      ['meeting:m1', 1, 'snapshot'],
      ['meeting:m2', 1, 'snapshot'],
    ]);
    await h.pipeline.process([other]);
    await h.pipeline.process([meeting([race(1), race(2, 'Closed')])]);
    expect(h.seen.slice(2).map((e) => [e.stream, e.seq, e.kind])).toEqual([['meeting:m1', 2, 'patch']]);
  });

  it('forgets a meeting not listed for 12 race hours: read back from the log, its claims afresh, no false event', async () => {
    expect(MEETING_IDLE_MS).toBe(12 * 3_600_000);
    const h = harness();
    const heads = vi.spyOn(h.log, 'head');
    const other = { ...meeting([race(1)]), meeting: 'm2' };
    await h.pipeline.process([meeting([race(1), race(2), race(3)])]);
    await h.clock.advance(10_000);
    await h.pipeline.process([meeting([race(1), race(2)])]); // race 3 missing once: held
    await h.clock.advance(MEETING_IDLE_MS - 10_000);
    await h.pipeline.process([other]);
    const m1Reads = () => heads.mock.calls.filter(([stream]) => stream === 'meeting:m1').length;
    expect(m1Reads()).toBe(1); // listed 10 s short of 12 h ago: still held, not read again

    await h.clock.advance(60_000);
    await h.pipeline.process([other]); // m1 not listed for 12 h and 50 s: swept
    await h.pipeline.process([meeting([race(1), race(2)])]);
    expect(m1Reads()).toBe(2); // read back from the log's head
    // The held claim on race 3 went with it and starts afresh: one list without it is no removal.
    expect(h.seen.map((e) => [e.stream, e.seq, e.kind])).toEqual([
      ['meeting:m1', 1, 'snapshot'],
      ['meeting:m2', 1, 'snapshot'],
    ]);
    for (let i = 0; i < 3; i++) {
      await h.clock.advance(10_000);
      await h.pipeline.process([meeting([race(1), race(2)])]);
    }
    expect(eventsOf(h.seen)).toEqual([['meeting.race_removed', 'race-3']]);
    expect(m1Reads()).toBe(2);
  });
});
