/**
 * A lease's logic, whatever stores it (lease.ts: Redis; memory-lease.ts: one process): what this node holds
 * and until when it trusts it, and the loop that acquires, renews every ttl/3, reports losses and resigns.
 * A store only answers acquire, renew and release.
 */
import type { Clock } from '../clock.js';
import { linkSignals } from '../linked-signal.js';

export interface Lease {
  /** Takes the lease when free (or renews it when already ours). True when this node holds it now. */
  acquire(): Promise<boolean>;
  /** Extends the lease when still ours. False (and no longer leader) when it was lost. */
  renew(): Promise<boolean>;
  /** Gives the lease up when still ours, so another node can take it at once. */
  release(): Promise<void>;
  isLeader(): boolean;
  /** The fencing token of the current holding, or undefined when not leader. */
  token(): number | undefined;
  /**
   * Acquires when free and renews every ttl/3 until stopped. Calls `onAcquired(token)` on each acquisition
   * and `onLost()` when a holding ends other than by stop. Returns a stop function that releases the lease.
   */
  run(onAcquired: (token: number) => void, onLost: () => void): () => Promise<void>;
  /**
   * Ends the current holding because a write carrying its token was refused as fenced: the run loop reports
   * the loss, releases the lease and acquires again, with a new token above every one a write carried.
   */
  resign(): void;
}

/**
 * How far a holder trusts its lease locally. Production trusts a holding until `ttl` after the request that
 * won it was sent (never later than the `until` the store keeps) and drops it when a renew finds it taken.
 * Tests of the fence inject a looser trust (test/cluster/unsafe-trust.ts), so that a resumed leader writes
 * with a stale token and only the fence stops it.
 */
export interface LeaseTrust {
  /** Until when (clock ms) a holding won or renewed by a request sent at `sentAt` is trusted. */
  until(sentAt: number, ttlMs: number): number;
  /** Whether a renew that finds the lease taken ends the holding at once. */
  readonly endsOnLostRenew: boolean;
}

export const leaseTrust: LeaseTrust = { until: (sentAt, ttlMs) => sentAt + ttlMs, endsOnLostRenew: true };

/** What a lease store answers; `at` is the clock time the request was sent. */
export interface LeaseStore {
  /** The token when this node holds the lease from now on (its own, extended, or a new one), else undefined. */
  acquire(at: number): Promise<number | undefined>;
  /** True when the holding of `token` was still ours and is now extended. */
  renew(token: number, at: number): Promise<boolean>;
  release(token: number): Promise<void>;
}

export function runLease(
  opts: LeaseStore & {
    ttlMs: number;
    clock: Clock;
    now: () => number;
    onError?: (err: unknown) => void;
    /** @default leaseTrust */
    trust?: LeaseTrust;
  },
): Lease {
  const { ttlMs, clock } = opts;
  const trust = opts.trust ?? leaseTrust;
  let held: { token: number; validUntil: number } | undefined;
  let resigning = false;
  let wake = new AbortController();

  const isLeader = () => held !== undefined && clock.now() < held.validUntil;

  const acquire = async () => {
    const sentAt = opts.now();
    const token = await opts.acquire(sentAt);
    if (token === undefined) {
      held = undefined;
      return false;
    }
    held = { token, validUntil: trust.until(sentAt, ttlMs) };
    return true;
  };

  const renew = async () => {
    if (!held) return false;
    const sentAt = opts.now();
    const mine = held;
    const ok = await opts.renew(mine.token, sentAt);
    if (held !== mine) return isLeader();
    if (ok) {
      held = { token: mine.token, validUntil: trust.until(sentAt, ttlMs) };
      return true;
    }
    // A test's loose trust keeps believing until the local validity ends, so that a fenced write ends the term.
    if (!trust.endsOnLostRenew && isLeader()) return true;
    held = undefined;
    return false;
  };

  const release = async () => {
    if (!held) return;
    const { token } = held;
    held = undefined;
    await opts.release(token);
  };

  return {
    acquire,
    renew,
    release,
    isLeader,
    token: () => (isLeader() ? held?.token : undefined),
    resign() {
      resigning = true;
      wake.abort();
    },
    run(onAcquired, onLost) {
      const stop = new AbortController();
      const interval = Math.max(1, Math.floor(ttlMs / 3));
      const loop = (async () => {
        let leading = false;
        while (!stop.signal.aborted) {
          wake = new AbortController();
          try {
            if (resigning) {
              resigning = false;
              if (leading) onLost();
              leading = false;
              await release();
            }
            const ok: boolean = leading ? await renew() : await acquire();
            if (ok && !leading && held) onAcquired(held.token);
            if (!ok && leading) onLost();
            leading = ok;
          } catch (err) {
            opts.onError?.(err);
            // Store unreachable: keep leading only while the local validity lasts.
            if (leading && !isLeader()) {
              leading = false;
              held = undefined;
              onLost();
            }
          }
          if (resigning) continue;
          const linked = linkSignals(stop.signal, wake.signal);
          await clock.sleep(interval, linked.signal).catch(() => {});
          linked.dispose();
        }
      })();
      return async () => {
        stop.abort();
        await loop;
        await release().catch((err) => opts.onError?.(err));
      };
    },
  };
}
