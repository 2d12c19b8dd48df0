import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createRacePipeline } from '../../../src/watch/track/race-pipeline.js';
import { SETTLED_GRACE_MS } from '../../../src/watch/track/race-states.js';
import { change, openPayload, RACE_ID, realPayload } from '../../watch/support.js';
import { addRace, clientPool, type Harness, startHarness } from './harness.js';

let h: Harness;
const clients = clientPool();

afterEach(async () => {
  clients.terminateAll();
  await h?.close();
});

describe('a settled race released from memory', () => {
  it('is sent to a late WebSocket subscriber from the log, as it was when it settled', async () => {
    h = await startHarness();
    addRace(h, RACE_ID);
    const pipeline = createRacePipeline({
      log: h.log,
      bus: h.bus,
      clock: h.clock,
      logger: pino({ level: 'silent' }),
    });
    await pipeline.process(RACE_ID, openPayload());
    await h.clock.advance(10_000);
    await pipeline.process(RACE_ID, realPayload());
    const settled = await pipeline.document(RACE_ID);
    // Another race's step after the grace period lets the settled race go.
    await h.clock.advance(SETTLED_GRACE_MS + 1);
    const other = change(openPayload(), (d) => {
      d.race.event_id = 'other-race';
    });
    await pipeline.process('other-race', other);
    expect(pipeline.cached().races).toBe(1);

    const c = clients.partner(h.url);
    c.send({ op: 'subscribe', channel: `race:${RACE_ID}`, reqId: 'late' });
    const snapshot = await c.nextOfType('snapshot');
    const head = await h.log.head(RACE_ID);
    expect(snapshot).toMatchObject({ stream: RACE_ID, seq: head.seq, document: settled });
    expect(snapshot.document).toMatchObject({ race: { status: 'Final' } });
  });
});
