import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { runLease } from '../../src/cluster/lease-loop.js';

/** A store that grants token 7 once and then finds the lease taken by another node. */
function leaseAfterPause(unsafeTrustMs?: number) {
  const clock = createManualClock(0);
  const lease = runLease({
    ttlMs: 1_000,
    unsafeTrustMs,
    clock,
    now: () => clock.now(),
    acquire: async () => 7,
    renew: async () => false,
    release: async () => {},
  });
  return { clock, lease };
}

describe('LEASE_UNSAFE_TRUST_MS (testing only)', () => {
  it('by default a holder stops trusting its lease ttl after it asked', async () => {
    const { clock, lease } = leaseAfterPause();
    expect(await lease.acquire()).toBe(true);
    await clock.advance(1_000);
    expect([lease.isLeader(), lease.token()]).toEqual([false, undefined]);
  });

  it('with the knob a resumed holder keeps its stale token, renew failing or not, until ttl + knob', async () => {
    const { clock, lease } = leaseAfterPause(5_000);
    expect(await lease.acquire()).toBe(true);
    await clock.advance(5_999);
    expect(await lease.renew()).toBe(true);
    expect([lease.isLeader(), lease.token()]).toEqual([true, 7]);
    await clock.advance(1);
    expect(await lease.renew()).toBe(false);
    expect([lease.isLeader(), lease.token()]).toEqual([false, undefined]);
  });
});
