import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { runLease } from '../../src/cluster/lease-loop.js';
import { unsafeTrust } from './unsafe-trust.js';

/** A store that grants token 7 once and then finds the lease taken by another node. */
function leaseAfterPause(unsafeTrustMs?: number) {
  const clock = createManualClock(0);
  const lease = runLease({
    ttlMs: 1_000,
    trust: unsafeTrustMs === undefined ? undefined : unsafeTrust(unsafeTrustMs),
    clock,
    now: () => clock.now(),
    acquire: async () => 7,
    renew: async () => false,
    release: async () => {},
  });
  return { clock, lease };
}

describe('the unsafe lease trust the nemesis injects (tests of the fence only)', () => {
  it('by default a holder stops trusting its lease ttl after it asked', async () => {
    const { clock, lease } = leaseAfterPause();
    expect(await lease.acquire()).toBe(true);
    await clock.advance(1_000);
    expect([lease.isLeader(), lease.token()]).toEqual([false, undefined]);
  });

  it('by default, and with 0 extra, a renew that finds the lease taken ends the holding at once', async () => {
    for (const extra of [undefined, 0]) {
      const { lease } = leaseAfterPause(extra);
      expect(await lease.acquire()).toBe(true);
      expect(await lease.renew()).toBe(false);
      expect([lease.isLeader(), lease.token()]).toEqual([false, undefined]);
    }
  });

  it('with it a resumed holder keeps its stale token, renew failing or not, until ttl + extra', async () => {
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
