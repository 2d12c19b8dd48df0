/**
 * What the freshness benchmarks share: the window they play, how a simulator change is classified and
 * timed against when racewire saw it, the floor, and medians and spreads over seeds.
 */
import type { SimChange } from '../../src/simulator/index.js';

export const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
};

const MINUTE = 60_000;

/** Where a race stands when fetched (status and minutes to its advertised start), for the budget's breakdown. */
export function phaseOf(status: string, toStartMs: number): string {
  if (status !== 'Open') return `jumped (${status})`;
  if (toStartMs <= 10 * MINUTE) return 'near jump (open, <= 10 min)';
  if (toStartMs <= 60 * MINUTE) return '10-60 min';
  if (toStartMs <= 180 * MINUTE) return '1-3 h';
  return '> 3 h';
}

/** Each phase's share of `counts`' total, as `phase 12 %` pairs. */
export const phaseShares = (counts: Readonly<Record<string, number>>): string => {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return Object.keys(counts)
    .sort()
    .map((k) => `${k} ${((100 * counts[k]!) / total).toFixed(1)} %`)
    .join(', ');
};

/** The simulator's configured day; its timetable's first race day maps to the day before. */
export const BENCH_DAY = '2026-11-20';
/** The busiest stretch of the real timetable (13 races within 10 minutes around 17:56 UTC), laid onto it. */
export const BENCH_FROM = Date.parse(arg('from', '2026-11-19T17:00:00Z'));
/**
 * Changes in the first 20 minutes (warm-up) and the last 5 (not yet seen) are not counted. Early
 * scratchings are counted over the same window, so a 1-hour run reports them too: one of a race hours away
 * not yet revisited by the end counts as never (the runs' "missed"), what the early-scratching slice buys
 * within the run (issue 26). A counted change never seen counts as never in the percentiles.
 */
const WARMUP = 20 * MINUTE;
const TAIL = 5 * MINUTE;
/** Near-jump odds: moves in the last 10 minutes before the real jump (the race's Closed). */
const NEAR_JUMP = 10 * MINUTE;

export interface Fetched {
  raceId: string;
  at: number;
}

export interface Bucket {
  /** Latency of each counted change; Infinity for one never seen. */
  ms: number[];
  missed: number;
}

/** When each race closed (jumped), from the journal. */
export function closesOf(journal: readonly SimChange[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of journal) if (c.type === 'status' && c.detail.to === 'Closed') out.set(c.raceId, c.at);
  return out;
}

/** The bucket a change is measured in, or undefined when it is not measured. */
export function bucketOf(change: SimChange, closes: ReadonlyMap<string, number>): string | undefined {
  switch (change.type) {
    case 'odds': {
      const close = closes.get(change.raceId);
      return close !== undefined && change.at >= close - NEAR_JUMP && change.at < close
        ? 'odds (last 10 min)'
        : undefined;
    }
    case 'scratching':
      return change.detail.late ? 'scratching (late)' : 'scratching (early)';
    case 'status':
    case 'results':
    case 'dividends':
    case 'start_time':
      return change.type;
    default:
      return undefined;
  }
}

/** Latency of every counted change: `seenAt` says when racewire saw it (undefined: never). */
export function latencyBuckets(
  journal: readonly SimChange[],
  seenAt: (change: SimChange) => number | undefined,
  from: number,
  to: number,
): Map<string, Bucket> {
  const closes = closesOf(journal);
  const out = new Map<string, Bucket>();
  for (const change of journal) {
    if (change.at < from + WARMUP || change.at > to - TAIL) continue;
    const key = bucketOf(change, closes);
    if (!key) continue;
    const bucket = out.get(key) ?? { ms: [], missed: 0 };
    out.set(key, bucket);
    const seen = seenAt(change);
    if (seen === undefined) bucket.missed++;
    bucket.ms.push(seen === undefined ? Number.POSITIVE_INFINITY : seen - change.at);
  }
  return out;
}

/** `seenAt` for the model: the first fetch of the change's race at or after it. */
export function firstFetchAfter(fetches: readonly Fetched[]): (change: SimChange) => number | undefined {
  const byRace = new Map<string, number[]>();
  for (const f of fetches) byRace.set(f.raceId, [...(byRace.get(f.raceId) ?? []), f.at]);
  return (change) => byRace.get(change.raceId)?.find((at) => at >= change.at);
}

/** A race the early-scratching goal watches: its advertised start and, if so, when it was abandoned. */
export interface BandRace {
  raceId: string;
  startTime: number;
  abandonedAt?: number;
}

/**
 * For each race 1-3 h from its advertised start at some point of [from, to], the longest stretch of that part
 * without a visit (its start and end count as bounds): the early-scratching goal. An abandoned race has
 * nothing more to see, so its band ends when it was abandoned: counted to its 1-hour mark, one abandoned
 * 20 minutes into the band showed as waiting 30 minutes (seeds 7 and 8, issue 26).
 */
export function bandGaps(
  races: readonly BandRace[],
  fetched: readonly Fetched[],
  from: number,
  to: number,
): { raceId: string; gap: number }[] {
  const byRace = new Map<string, number[]>();
  for (const f of fetched) byRace.set(f.raceId, [...(byRace.get(f.raceId) ?? []), f.at]);
  const out: { raceId: string; gap: number }[] = [];
  for (const race of races) {
    const lo = Math.max(from, race.startTime - 180 * MINUTE);
    const hi = Math.min(to, race.startTime - 60 * MINUTE, race.abandonedAt ?? Number.POSITIVE_INFINITY);
    if (hi - lo < MINUTE) continue;
    const times = [lo, ...(byRace.get(race.raceId) ?? []).filter((t) => t > lo && t < hi), hi];
    out.push({ raceId: race.raceId, gap: Math.max(...times.slice(1).map((t, i) => t - times[i]!)) });
  }
  return out;
}

export const pct = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/**
 * A budget of `perMinute` spread evenly over the races whose window holds each measured near-jump odds
 * change: a race there is fetched every 60 x n / perMinute seconds (n of them at once) and the change waits
 * uniformly up to that. The distribution is that mixture over the changes.
 */
function evenSpread(
  journal: readonly SimChange[],
  windows: ReadonlyArray<readonly [number, number]>,
  closes: ReturnType<typeof closesOf>,
  perMinute: number,
  from: number,
  to: number,
): { p50: number; p95: number; racesMedian: number; racesMax: number } {
  const racesAt = (t: number) => windows.filter(([lo, hi]) => t >= lo && t < hi).length;
  const waits: number[] = [];
  const counts: number[] = [];
  for (const change of journal) {
    if (change.at < from + WARMUP || change.at > to - TAIL) continue;
    if (bucketOf(change, closes) !== 'odds (last 10 min)') continue;
    const n = racesAt(change.at);
    counts.push(n);
    const interval = (60_000 * n) / perMinute;
    for (let k = 0; k < 20; k++) waits.push((interval * (k + 0.5)) / 20);
  }
  return {
    p50: pct(waits, 50),
    p95: pct(waits, 95),
    racesMedian: pct(counts, 50),
    racesMax: Math.max(...counts),
  };
}

/**
 * The floor for near-jump odds: the whole budget spread evenly over the races within 10 minutes of their
 * jump at each instant (evenSpread).
 */
export function nearJumpFloor(
  journal: readonly SimChange[],
  rpm: number,
  from: number,
  to: number,
): { p50: number; p95: number; racesMedian: number; racesMax: number } {
  const closes = closesOf(journal);
  const windows = [...closes.values()].map((close) => [close - NEAR_JUMP, close] as const);
  return evenSpread(journal, windows, closes, rpm, from, to);
}

/**
 * The realistic floor (issue 26): what any poller can do near the jump once the work every poller must also
 * do is paid for (listing every 6 s, post-jump fetches, a visit of each race within the hour every ~285 s:
 * `reservedPerMinute`), with the rest spread evenly over the races that are Open and within 10 minutes of
 * their advertised start or past it, since the real jump is not known in advance (`startOf`: a race's
 * advertised start).
 */
export function realisticFloor(
  journal: readonly SimChange[],
  startOf: (raceId: string) => number,
  rpm: number,
  reservedPerMinute: number,
  from: number,
  to: number,
): { p50: number; p95: number; racesMedian: number } {
  const closes = closesOf(journal);
  const windows = [...closes].map(([raceId, close]) => [startOf(raceId) - NEAR_JUMP, close] as const);
  const { p50, p95, racesMedian } = evenSpread(journal, windows, closes, rpm - reservedPerMinute, from, to);
  return { p50, p95, racesMedian };
}

export const seconds = (ms: number): string =>
  Number.isNaN(ms) ? 'n/a' : ms === Number.POSITIVE_INFINITY ? 'never' : `${(ms / 1000).toFixed(1)} s`;

/** Median over runs and [min-max], for one statistic. */
export function spread(values: readonly number[], fmt = seconds): string {
  const ok = values.filter((v) => !Number.isNaN(v));
  if (ok.length === 0) return 'n/a';
  const sorted = [...ok].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return sorted.length === 1 ? fmt(median) : `${fmt(median)} [${fmt(sorted[0]!)}-${fmt(sorted.at(-1)!)}]`;
}

/** A markdown table of several runs' buckets: p50 and p95 as median [min-max] over the runs. */
export function summarise(runs: readonly Map<string, Bucket>[]): string {
  const keys = [...new Set(runs.flatMap((r) => [...r.keys()]))].sort();
  const lines = ['| change | n | p50 | p95 | missed |', '|---|---|---|---|---|'];
  for (const key of keys) {
    const of = (f: (b: Bucket) => number) => runs.map((r) => (r.get(key) ? f(r.get(key)!) : Number.NaN));
    lines.push(
      `| ${key} | ${spread(
        of((b) => b.ms.length),
        String,
      )} | ${spread(of((b) => pct(b.ms, 50)))} | ${spread(of((b) => pct(b.ms, 95)))} | ${spread(
        of((b) => b.missed),
        String,
      )} |`,
    );
  }
  return lines.join('\n');
}

/** A request as the yield count sees it: a race's fetch (or a listing: `raceId` undefined), and why it was made. */
export interface Request {
  raceId?: string;
  at: number;
  /** What it was made for: the race's phase, or the rule that picked it (dirty, Interim dividends), or discovery. */
  slice: string;
}

/** Per slice: requests in the window, those that found a change, and the changes they found by kind. */
export interface SliceYield {
  requests: number;
  found: number;
  /** A race's first fetch: a baseline, never a change found. */
  first: number;
  kinds: Record<string, number>;
}

/** Changes a listing shows: a race's status or advertised start. */
const LISTED: ReadonlySet<SimChange['type']> = new Set(['status', 'start_time']);

/**
 * What each request of [from, to] found (issue 26: the yield of the slices outside the near-jump set): a race's
 * fetch found the journal's changes of its race since that race's previous fetch (whatever slice made it); a
 * listing found the status and start-time changes of any race since the previous listing. A request that found
 * none was spent on nothing.
 */
export function requestYield(
  requests: readonly Request[],
  journal: readonly SimChange[],
  from: number,
  to: number,
): Map<string, SliceYield> {
  const byRace = new Map<string, SimChange[]>();
  const listed: SimChange[] = [];
  for (const c of journal) {
    byRace.set(c.raceId, [...(byRace.get(c.raceId) ?? []), c]);
    if (LISTED.has(c.type)) listed.push(c);
  }
  const last = new Map<string, number>();
  const out = new Map<string, SliceYield>();
  for (const r of [...requests].sort((a, b) => a.at - b.at)) {
    const key = r.raceId ?? 'listing';
    const prev = last.get(key);
    last.set(key, r.at);
    if (r.at < from || r.at > to) continue;
    const y = out.get(r.slice) ?? { requests: 0, found: 0, first: 0, kinds: {} };
    out.set(r.slice, y);
    y.requests++;
    if (prev === undefined) {
      y.first++;
      continue;
    }
    const changes = (r.raceId === undefined ? listed : (byRace.get(r.raceId) ?? [])).filter(
      (c) => c.at > prev && c.at <= r.at,
    );
    if (changes.length > 0) y.found++;
    for (const type of new Set(changes.map((c) => c.type))) y.kinds[type] = (y.kinds[type] ?? 0) + 1;
  }
  return out;
}

/** `requestYield` as lines: slice, requests, found a change (%), baselines, and by kind the requests that found it. */
export const yieldLines = (yields: ReadonlyMap<string, SliceYield>): string[] =>
  [...yields.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([slice, y]) =>
        `${slice}: ${y.requests} requests, ${y.found} found a change (${((100 * y.found) / Math.max(1, y.requests - y.first)).toFixed(0)} % of those not first), ${y.first} first; ${Object.entries(
          y.kinds,
        )
          .sort()
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}`,
    );
