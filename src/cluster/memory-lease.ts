/**
 * The lease in one process: the same rules as the Redis lease (lease.ts) over a plain object that several
 * in-process nodes share, for tests of leadership on a manual clock. One contract suite runs against both.
 */
import type { Clock } from '../clock.js';
import { type Lease, runLease } from './lease-loop.js';

/** What Redis holds for the Redis lease: the holder, its token and until when, and the token counter. */
export interface MemoryLeaseState {
  holder?: { nodeId: string; token: number; until: number };
  /** The last token issued, and the fence mark: writes carrying a higher token raise it. */
  counter: number;
}

export const createMemoryLeaseState = (): MemoryLeaseState => ({ counter: 0 });

export function createMemoryLease(opts: {
  state: MemoryLeaseState;
  nodeId: string;
  ttlMs: number;
  clock: Clock;
}): Lease {
  const { state, nodeId, ttlMs, clock } = opts;
  const ours = (token: number) => state.holder?.nodeId === nodeId && state.holder.token === token;
  return runLease({
    ttlMs,
    clock,
    now: () => Math.floor(clock.now()),
    async acquire(at) {
      const current = state.holder;
      if (current?.nodeId === nodeId) {
        current.until = at + ttlMs;
        return current.token;
      }
      if (current && current.until > at) return undefined;
      state.holder = { nodeId, token: ++state.counter, until: at + ttlMs };
      return state.holder.token;
    },
    async renew(token, at) {
      if (!ours(token)) return false;
      state.holder!.until = at + ttlMs;
      return true;
    },
    async release(token) {
      if (ours(token)) state.holder = undefined;
    },
  });
}
