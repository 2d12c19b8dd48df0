/**
 * The state of a replayed upstream at an instant: for every request recorded so far, its latest response.
 * Records are consumed in order as time moves on (a day's recording is never held whole in memory); each
 * kept body is deflated (level 1: cheap; a 190 KB race payload keeps about 58 KB with its entry, measured by
 * bench/recording.ts), so memory grows with the number of distinct requests, not with the recording's length.
 */
import { deflateRawSync, inflateRawSync, constants as zlib } from 'node:zlib';
import { type RecordedExchange, requestKey } from './exchange.js';

export interface ReplayAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** When the answer was recorded. */
  at: number;
}

export interface ReplayStats {
  /** Records consumed so far. */
  records: number;
  /** Distinct requests answered by the records so far. */
  requests: number;
  /** Arrival time of the last record consumed. */
  lastAt: number | undefined;
  /** Whether the recording has been read to its end. */
  ended: boolean;
}

export interface ReplayStore {
  /** The latest response recorded for the request at or before `at`, or undefined if there is none. */
  answer(
    method: string,
    path: string,
    query: Record<string, string>,
    at: number,
  ): Promise<ReplayAnswer | undefined>;
  /** Arrival time of the first record (undefined for an empty recording). */
  first(): Promise<number | undefined>;
  stats(): ReplayStats;
}

interface Kept {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  at: number;
}

export function createReplayStore(records: AsyncIterator<RecordedExchange>): ReplayStore {
  const latest = new Map<string, Kept>();
  let next: RecordedExchange | undefined;
  let ended = false;
  let consumed = 0;
  let lastAt: number | undefined;
  let firstAt: number | undefined;
  // Callers arrive concurrently; reading is one at a time.
  let turn: Promise<unknown> = Promise.resolve();
  const serial = <T>(step: () => Promise<T>): Promise<T> => {
    const result = turn.then(step, step);
    turn = result.catch(() => {});
    return result;
  };

  async function peek(): Promise<RecordedExchange | undefined> {
    if (next === undefined && !ended) {
      const step = await records.next();
      if (step.done) ended = true;
      else {
        next = step.value;
        firstAt ??= next.at;
      }
    }
    return next;
  }

  async function advanceTo(at: number): Promise<void> {
    for (let record = await peek(); record && record.at <= at; record = await peek()) {
      latest.set(requestKey(record.method, record.path, record.query), {
        status: record.status,
        headers: record.headers,
        body: deflateRawSync(record.body, { level: zlib.Z_BEST_SPEED }),
        at: record.at,
      });
      consumed++;
      lastAt = record.at;
      next = undefined;
    }
  }

  return {
    answer: (method, path, query, at) =>
      serial(async () => {
        await advanceTo(at);
        const kept = latest.get(requestKey(method, path, query));
        if (!kept) return undefined;
        return {
          status: kept.status,
          headers: kept.headers,
          at: kept.at,
          body: inflateRawSync(kept.body).toString(),
        };
      }),
    first: () =>
      serial(async () => {
        await peek();
        return firstAt;
      }),
    stats: () => ({ records: consumed, requests: latest.size, lastAt, ended }),
  };
}
