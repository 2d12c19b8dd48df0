import { describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { event, eventLogContract, eventLogModelContract, snapshot } from './event-log.contract.js';

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

  it('runs onAppend with the stored entries and appends nothing when it throws', async () => {
    const seen: number[][] = [];
    let fail = false;
    const log = createMemoryEventLog({
      onAppend: (entries) => {
        if (fail) throw new Error('outbox full');
        seen.push(entries.map((e) => e.seq));
      },
    });
    await log.append('r1', { entries: [snapshot({ v: 1 }), event('a')], document: { v: 1 }, now });
    fail = true;
    await expect(log.append('r1', { entries: [event('b')], now })).rejects.toThrow('outbox full');
    expect(seen).toEqual([[1, 2]]);
    expect((await log.head('r1')).seq).toBe(2);
  });
});

eventLogModelContract('memory', async (opts) => ({ log: createMemoryEventLog(opts) }), 200);
