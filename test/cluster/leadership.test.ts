import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import { alwaysLeader, inOrder, leaseLeadership, type Role } from '../../src/cluster/leadership.js';
import { createMemoryLease, createMemoryLeaseState } from '../../src/cluster/memory-lease.js';
import { silentLogger } from '../delivery/webhooks/helpers.js';

/** A role that records its transitions, with the token it was started under. */
function recorder(name: string, seen: string[], token?: () => number | undefined): Role {
  return {
    start: async () => void seen.push(`${name} start${token ? ` ${token()}` : ''}`),
    stop: async () => void seen.push(`${name} stop`),
  };
}

async function asleep(clock: ManualClock, loops: number): Promise<void> {
  while (clock.pending() < loops) await new Promise<void>((r) => setImmediate(r));
}

describe('leadership', () => {
  it('makes a single node the leader from lead to close, with one token', async () => {
    const leadership = alwaysLeader(silentLogger);
    const seen: string[] = [];
    leadership.lead(recorder('poll', seen, leadership.token));
    await leadership.close();
    expect(seen).toEqual(['poll start 1', 'poll stop']);
    expect([leadership.isLeader(), leadership.token()]).toEqual([false, undefined]);
  });

  it('stops roles in the reverse order they started: dispatching stops before polling', async () => {
    const seen: string[] = [];
    const both = inOrder(recorder('poll', seen), recorder('dispatch', seen));
    await both.start();
    await both.stop();
    expect(seen).toEqual(['poll start', 'dispatch start', 'dispatch stop', 'poll stop']);
  });

  it('runs the role on one node at a time, and hands it over at close before the lease is released', async () => {
    const clock = createManualClock(0);
    const state = createMemoryLeaseState();
    const seen: string[] = [];
    const nodes = ['a', 'b'].map((id) => {
      const lease = createMemoryLease({ state, nodeId: id, ttlMs: 3_000, clock });
      const leadership = leaseLeadership(lease, silentLogger, id);
      leadership.lead(recorder(id, seen, leadership.token));
      return leadership;
    });
    await asleep(clock, 2);
    expect(seen).toEqual(['a start 1']);
    await nodes[0]!.close();
    expect(seen).toEqual(['a start 1', 'a stop']);
    await clock.advance(1_000);
    await asleep(clock, 1);
    expect(seen).toEqual(['a start 1', 'a stop', 'b start 2']);
    await nodes[1]!.close();
  });

  it('ends the term on a fenced write and leads again with a new token', async () => {
    const clock = createManualClock(0);
    const lease = createMemoryLease({ state: createMemoryLeaseState(), nodeId: 'a', ttlMs: 3_000, clock });
    const leadership = leaseLeadership(lease, silentLogger, 'a');
    const seen: string[] = [];
    leadership.lead(recorder('a', seen, leadership.token));
    await asleep(clock, 1);
    leadership.fenced();
    await asleep(clock, 1);
    await leadership.close();
    expect(seen).toEqual(['a start 1', 'a stop', 'a start 2', 'a stop']);
  });
});
