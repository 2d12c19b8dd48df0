import { describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { event, eventLogContract, eventLogModelContract } from './event-log.contract.js';

eventLogContract('memory', async (opts) => ({ log: createMemoryEventLog(opts) }));

describe('memory event log', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');

  it('takes its epoch from newEpoch, once per log', async () => {
    let n = 0;
    const log = createMemoryEventLog({ newEpoch: () => `epoch-${++n}` });
    await log.append('r1', { entries: [event('a')], now });
    expect((await log.head('r1')).epoch).toBe('epoch-1');
    expect((await log.head('r2')).epoch).toBe('epoch-1');
    expect((await createMemoryEventLog({ newEpoch: () => `epoch-${++n}` }).head('r1')).epoch).toBe('epoch-2');
  });
});

eventLogModelContract('memory', async (opts) => ({ log: createMemoryEventLog(opts) }), 200);
