/**
 * The race pipeline's one map of race states (track-race.ts: document, trust state, money memory, favourite,
 * digest), bounded in bytes, not by races seen: a race day repeats forever. The least recently used race
 * goes first when the cache is full, and a settled race (Final with Final dividends, or Abandoned) goes once
 * its grace period has passed on the race clock. Nothing is lost by an eviction: the state is rebuilt from
 * the log (`resumedState`: the document from its head, the order and the favourite from its entries; held
 * claims start afresh, which only delays them, and the money memory empty, a quieter window, never a false
 * flow), and without the digest the race's next payload is processed in full (no entry when unchanged).
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import { onClock } from '../../clock-cache.js';
import { moneyBytes } from '../detect/money-flow.js';
import { jsonSizeFloor } from './normalise.js';
import type { RaceDocument, RaceState } from './track-race.js';

export interface RaceStateLimits {
  /** Most bytes of cached states (`stateBytes`). @default DEFAULT_RACE_CACHE_BYTES */
  maxBytes?: number;
  /** Race time a settled race stays cached, for late corrections and subscribers. @default SETTLED_GRACE_MS */
  settledGraceMs?: number;
}

/**
 * 16 MiB of race state, nearly all document JSON: a real race document with the market members is 20-60 kB,
 * so 300 to 800 races, the races fetched in the last few race-minutes (those near their jump, fetched every
 * few seconds, always among them); a race further ahead, fetched minutes apart, is read back from the log. At 64 MiB the cache alone
 * held 51 MB of the demo's heap after 14 minutes and was still filling (issue 23: the demo within 400 MB).
 */
export const DEFAULT_RACE_CACHE_BYTES = 16 * 1024 * 1024;
/** 10 minutes of race time after a race settles. */
export const SETTLED_GRACE_MS = 10 * 60_000;

/**
 * A state's bytes as the cache counts them: its document's JSON (nearly all of it), its trust state's and
 * its money memory's (money-flow.ts: at most 256 shares a runner), the favourite's key and the digest. A
 * document from normaliseEvent is counted by the size floor counted while it was copied (99.8 % of its JSON
 * on the real payload: numbers count one byte), not serialised again for every step (2 % of the soak's CPU).
 */
export function stateBytes(state: RaceState): number {
  return (
    (jsonSizeFloor(state.document) ?? JSON.stringify(state.document).length) +
    JSON.stringify(state.trust).length +
    moneyBytes(state.money) +
    (state.favourite?.length ?? 0) +
    (state.digest?.length ?? 0)
  );
}

/** A race is settled once Final with Final dividends, or Abandoned: nothing more will change it. */
export function isSettled(document: RaceDocument): boolean {
  const status = document.race.status;
  if (status === 'Abandoned') return true;
  if (status !== 'Final') return false;
  const dividends = Object.values(document.dividends ?? {}) as Array<{ status?: string }>;
  return dividends.some((d) => d.status === 'Final');
}

export interface RaceStates {
  get(raceId: string): RaceState | undefined;
  /** Stores a race's state; a settled document starts its grace period (once). */
  set(raceId: string, state: RaceState): void;
  delete(raceId: string): void;
  /** Drops settled races whose grace period has passed. */
  releaseSettled(): void;
  /** Races cached and the bytes their states take. */
  stats(): { races: number; bytes: number };
}

export function createRaceStates(clock: Clock, limits: RaceStateLimits = {}): RaceStates {
  const graceMs = limits.settledGraceMs ?? SETTLED_GRACE_MS;
  const cache = new LRUCache<string, RaceState>({
    maxSize: limits.maxBytes ?? DEFAULT_RACE_CACHE_BYTES,
    sizeCalculation: (state) => Math.max(1, stateBytes(state)),
    // Settled races expire on the race clock.
    ...onClock(clock),
    noUpdateTTL: true,
  });
  return {
    get: (raceId) => cache.get(raceId),
    set(raceId, state) {
      const settled = isSettled(state.document);
      const remaining = cache.getRemainingTTL(raceId);
      // A race already in its grace period keeps its deadline; one that is not settled has none.
      const ttl = settled ? (remaining > 0 && remaining !== Infinity ? remaining : graceMs) : 0;
      cache.set(raceId, state, { ttl, noUpdateTTL: false });
    },
    delete: (raceId) => void cache.delete(raceId),
    releaseSettled: () => void cache.purgeStale(),
    stats: () => ({ races: cache.size, bytes: cache.calculatedSize }),
  };
}
