/**
 * Failed credentials per client address: after `maxFailures` wrong admin tokens or API keys from one address
 * within `windowMs` (wall clock, a fixed window from the first failure), every further attempt from it is
 * refused with 429 until the window ends, before the credential is even compared, so guessing costs time.
 * A right credential does not reset the count (a guesser holding one key could otherwise reset it). Bounded:
 * at most `maxAddresses` addresses are remembered, the least recently seen forgotten first.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import { errorBody } from './errors.js';

export interface AuthFailureLimits {
  /** Failures per address allowed in a window; the next attempt gets 429. */
  maxFailures: number;
  /** Length of the window, from an address's first failure. */
  windowMs: number;
  /** Addresses remembered at once. @default 10_000 */
  maxAddresses?: number;
}

/** `AUTH_MAX_FAILURES` and `AUTH_FAILURE_WINDOW_MS`' defaults (src/config.ts). */
export const DEFAULT_AUTH_FAILURE_LIMITS: AuthFailureLimits = { maxFailures: 10, windowMs: 10 * 60_000 };

export type AuthGate = { ok: true } | { ok: false; retryAfterMs: number };

export interface AuthFailures {
  /** Whether `address` may try a credential now (checked before the credential is compared). */
  check(address: string): AuthGate;
  /** Counts one failed attempt from `address`. */
  fail(address: string): void;
}

export function createAuthFailures(limits: AuthFailureLimits, wall: Clock): AuthFailures {
  const windows = new LRUCache<string, { start: number; count: number }>({
    max: limits.maxAddresses ?? 10_000,
  });
  const current = (address: string) => {
    const w = windows.get(address);
    if (w && wall.now() - w.start < limits.windowMs) return w;
    return undefined;
  };
  return {
    check(address) {
      const w = current(address);
      if (!w || w.count < limits.maxFailures) return { ok: true };
      return { ok: false, retryAfterMs: w.start + limits.windowMs - wall.now() };
    },
    fail(address) {
      const w = current(address);
      if (w) w.count++;
      else windows.set(address, { start: wall.now(), count: 1 });
    },
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether `given` equals `want`, in time that depends on neither their contents nor their lengths: both are
 * hashed to 32 bytes first, so a wrong length is not answered faster than a wrong byte.
 */
export function sameSecret(given: string, want: string): boolean {
  return timingSafeEqual(digest(given), digest(want));
}

export type BearerVerdict =
  | { ok: true }
  | { ok: false; status: 401 }
  | { ok: false; status: 429; retryAfterSeconds: number };

/**
 * A bearer token checked as every guarded route checks it: past the failure limit the address is refused
 * (429) before the token is compared; a wrong or missing token is counted and refused (401).
 */
export function checkBearer(
  failures: AuthFailures,
  address: string,
  authorization: string | undefined,
  token: string,
): BearerVerdict {
  const gate = failures.check(address);
  if (!gate.ok) return { ok: false, status: 429, retryAfterSeconds: Math.ceil(gate.retryAfterMs / 1000) };
  const given = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
  if (sameSecret(given, token)) return { ok: true };
  failures.fail(address);
  return { ok: false, status: 401 };
}

/** The 429 every bearer-guarded route answers past the failure limit, in the documented error shape. */
export function sendTooManyFailures(reply: FastifyReply, retryAfterSeconds: number): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(retryAfterSeconds))
    .send(
      errorBody('rate_limited', `too many failed tokens from this address; retry in ${retryAfterSeconds} s`),
    );
}
