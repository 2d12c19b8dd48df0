/**
 * A lease trust for tests of the fence only (the nemesis): the holder trusts its lease `extraMs` past its
 * time-to-live, even once a renew finds it taken, so a leader resumed after a pause (or cut off from Redis)
 * keeps appending and claiming with its stale token, and only the fence in the log's and the outbox's scripts
 * stops it (a fenced write ends the term). Production never has it: racewire's own trust is `leaseTrust`.
 */
import { type LeaseTrust, leaseTrust } from '../../src/cluster/lease-loop.js';

export function unsafeTrust(extraMs: number): LeaseTrust {
  if (extraMs === 0) return leaseTrust;
  return { until: (sentAt, ttlMs) => sentAt + ttlMs + extraMs, endsOnLostRenew: false };
}
