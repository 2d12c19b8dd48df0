/**
 * Freshness under budget (issues 11 and 17), end to end. Plays a stretch of the simulated race days (the
 * multi-day world with the real jump and moving pools) through the simulator, the real client and limiter,
 * the poller and the race pipeline on a manual virtual clock at 100 requests a minute, once per strategy and
 * seed on the same window: racewire's scheduler (at each trade-off setting asked for) and the
 * budget-matched scraper (every race every N s from 15 minutes before its advertised start until Final, N
 * chosen so it spends the whole budget). Detection latency = when racewire appended the event minus when
 * the simulator made the change (its journal), by kind; the floor comes from the same journal.
 *
 *   npx tsx bench/freshness.ts [--hours 1] [--seeds 7,8,9] [--shares 0.12] [--scraper yes] [--rpm 100]
 *                              [--concurrency 2]
 *
 * Everything runs in one process: the simulator is called through fastify's inject (no sockets), and
 * virtual time moves in 100 ms steps only once the work in flight has settled, so CPU speed does not leak
 * into the latencies.
 */
import type { LogEntry } from '../src/events/envelope.js';
import type { SimChange, SimWorld } from '../src/simulator/index.js';
import { DEFAULT_SETTINGS } from '../src/watch/schedule/poll-policy.js';
import { type Pick, pickNext } from '../src/watch/schedule/scheduler.js';
import type { RaceWatch } from '../src/watch/track/race-watch.js';
import { budgetMatchedInterval, scraper } from './baseline-strategies.js';
import { drive, type Strategy } from './support/freshness-drive.js';
import {
  arg,
  BENCH_FROM,
  type Bucket,
  bandGaps,
  bucketOf,
  closesOf,
  type Fetched,
  latencyBuckets,
  nearJumpFloor,
  pct,
  phaseOf,
  phaseShares,
  type Request,
  realisticFloor,
  requestYield,
  type SliceYield,
  seconds,
  spread,
  summarise,
  yieldLines,
} from './support/freshness-metrics.js';

const HOURS = Number(arg('hours', '1'));
const RPM = Number(arg('rpm', '100'));
const SEEDS = arg('seeds', '7,8,9').split(',').map(Number);
/** Early-scratching shares to run; defaults to the production setting: the bench measures what ships. */
const SHARES = arg('shares', String(DEFAULT_SETTINGS.earlyScratchingShare))
  .split(',')
  .filter(Boolean)
  .map(Number);
const WITH_SCRAPER = arg('scraper', 'yes') === 'yes';
/** The poller's workers (its default, 2, unless asked): the limiter bounds the rate, workers only overlap waits. */
const CONCURRENCY = Number(arg('concurrency', '2'));
const FROM = BENCH_FROM;
const TO = FROM + HOURS * 3_600_000;
const MINUTE = 60_000;
/** As the latency buckets: the first 20 minutes warm up. */
const WARMUP = 20 * MINUTE;
/** racewire discovers every 6 s (DISCOVERY_INTERVAL_MS); the scraper every minute, about 2 requests. */
const RACEWIRE_DISCOVERY_MS = 6_000;
const SCRAPER_DISCOVERY_MS = 60_000;
const SCRAPER_DISCOVERY_PER_MINUTE = 2;
/**
 * The realistic floor's reserve (issue 26): listing every 6 s (10 a minute), post-jump fetches from listed
 * status changes and Interim-dividend polling (~5), each Open race within the hour every ~285 s (~9).
 */
const REALISTIC_RESERVED_PER_MINUTE = 24;

interface RunResult {
  requests: number[];
  /** Requests by where the race stood when fetched (phaseOf), or discovery. */
  phases: Record<string, number>;
  /** Longest wait between visits of each race while 1-3 h from its advertised start (ms, one per race). */
  bandGaps: number[];
  /** Near-jump odds latencies by when the move came: before the race's advertised start, or at or after it. */
  oddsByStart: { before: number[]; after: number[] };
  /** Each race 1-3 h out that waited more than 20 minutes between visits, traced. */
  bandOver: string[];
  buckets: Map<string, Bucket>;
  floor: ReturnType<typeof nearJumpFloor>;
  realistic: ReturnType<typeof realisticFloor>;
  interval?: number;
  wallMs: number;
  /** One line per post-jump change never seen: what the journal and racewire show of its race. */
  unseen: string[];
  /** Status changes seen after more than 7 s (the goal): where the wait went. */
  slowStatus: string[];
  /** Per status change after the warm-up: ms from the listing that showed it to the race's fetch being sent. */
  listedToSent: number[];
  /** What the requests of the measured window found, by slice (requestYield). */
  yields: Map<string, SliceYield>;
}

/**
 * One upstream request as the poller made it: when a worker decided it (the strategy's pick; a listing's later
 * pages are decided when the earlier one answered), when it entered the limiter's queue, when the limiter
 * let it out, and at what priority. Discovery's requests carry `listing`.
 */
interface Traced {
  what: string;
  priority: number;
  decidedAt: number;
  queuedAt: number;
  sentAt?: number;
}

async function run(
  seed: number,
  makeStrategy: (world: SimWorld) => { strategy: Strategy; interval?: number },
  discoveryIntervalMs: number,
): Promise<RunResult> {
  const wall = Date.now();
  const traced: Traced[] = [];
  /** The worker's last pick per race (or listing), until its request is queued. */
  const decided = new Map<string, number>();
  let interval: number | undefined;
  const requests: number[] = [];
  const phases: Record<string, number> = {};
  const fetched: Fetched[] = [];
  const made: Request[] = [];
  /** Why the strategy picked each race, when a rule other than its phase did: dirty, or Interim dividends. */
  const why = new Map<string, string>();
  const { world, journal, entries } = await drive({
    seed,
    from: FROM - 2 * MINUTE,
    to: TO,
    rpm: RPM,
    concurrency: CONCURRENCY,
    discoveryIntervalMs,
    strategy: (simWorld, clock) => {
      const made = makeStrategy(simWorld);
      interval = made.interval;
      return (input) => {
        // The poller hands a one-shot iterator; read once here so the label below sees the races too.
        const races = [...input.races];
        const pick = made.strategy({ ...input, races });
        if (pick.kind === 'race') decided.set(pick.raceId, clock.now());
        const reason = pick.kind === 'race' ? whyPicked(pick, races, input.now) : undefined;
        if (pick.kind === 'race' && reason) why.set(pick.raceId, reason);
        if (pick.kind === 'discovery') decided.set('listing', clock.now());
        return pick;
      };
    },
    onSend: (url, simWorld, now) => {
      requests.push(now);
      const raceId = /\/events\/([^/?]+)/.exec(url.pathname)?.[1];
      const phase = raceId
        ? (() => {
            const s = simWorld.summaryAt(raceId, now);
            return phaseOf(s.status, s.startTime - now);
          })()
        : 'discovery';
      phases[phase] = (phases[phase] ?? 0) + 1;
      if (raceId) fetched.push({ raceId, at: now });
      made.push({ raceId, at: now, slice: (raceId && why.get(raceId)) || phase });
      if (raceId) why.delete(raceId);
      const t = traced.find((r) => r.what === (raceId ?? 'listing') && r.sentAt === undefined);
      if (t) t.sentAt = now;
    },
    wrapSource: (source, clock) => {
      const queue = (what: string, priority: number | undefined) => {
        const now = clock.now();
        traced.push({ what, priority: priority ?? 0, decidedAt: decided.get(what) ?? now, queuedAt: now });
        decided.delete(what);
      };
      return {
        ...source,
        meetings: (query, opts) => {
          queue('listing', opts?.priority);
          return source.meetings(query, opts);
        },
        event: (id, opts) => {
          queue(id, opts?.priority);
          return source.event(id, opts);
        },
      };
    },
  });
  return {
    requests,
    phases,
    ...bandTrace(world, journal, fetched),
    buckets: latencyBuckets(journal, seenBy(entries), FROM, TO),
    oddsByStart: oddsByStart(journal, entries, world),
    floor: nearJumpFloor(journal, RPM, FROM, TO),
    realistic: realisticFloor(
      journal,
      (raceId) => world.summaryAt(raceId, FROM).startTime,
      RPM,
      REALISTIC_RESERVED_PER_MINUTE,
      FROM,
      TO,
    ),
    interval,
    wallMs: Date.now() - wall,
    unseen: unseenTraces(journal, entries, fetched),
    slowStatus: slowStatusTraces(journal, entries, traced),
    listedToSent: listedToSent(journal, traced),
    yields: requestYield(made, journal, FROM + WARMUP, TO - 5 * MINUTE),
  };
}

/**
 * The early-scratching goal (`bandGaps`, measured after the warm-up), with each race over 20 minutes traced:
 * its advertised start at the run's start and end, and its visits.
 */
function bandTrace(world: SimWorld, journal: readonly SimChange[], fetched: readonly Fetched[]) {
  const abandoned = new Map(
    journal.filter((c) => c.type === 'status' && c.detail.to === 'Abandoned').map((c) => [c.raceId, c.at]),
  );
  const races = world.races.map((r) => ({
    raceId: r.id,
    startTime: world.summaryAt(r.id, TO).startTime,
    abandonedAt: abandoned.get(r.id),
  }));
  const gaps = bandGaps(races, fetched, FROM + WARMUP, TO);
  const over = gaps
    .filter((g) => g.gap > 20 * MINUTE)
    .map(({ raceId, gap }) => {
      const visits = fetched.filter((f) => f.raceId === raceId).map((f) => at(f.at));
      const start = (t: number) => at(world.summaryAt(raceId, t).startTime);
      return `${raceId} waited ${seconds(gap)}: advertised start ${start(FROM)} at the run's start, ${start(TO)} at its end; visits ${visits.join(' ')}`;
    });
  return { bandGaps: gaps.map((g) => g.gap), bandOver: over };
}

/**
 * Why the strategy picked a race, when a rule other than its phase's did (the yield's slices): a listed
 * change (dirty), the Interim dividends' deadline, or the score for an Interim race, by where it stood.
 */
function whyPicked(
  pick: Extract<Pick, { kind: 'race' }>,
  races: readonly RaceWatch[],
  now: number,
): string | undefined {
  if (pick.deadline) return 'Interim dividends deadline';
  if (pick.urgent) return 'dirty (a listed change)';
  const race = races.find((r) => r.raceId === pick.raceId);
  if (race?.status !== 'Interim') return undefined;
  if (race.dividends !== 'none') return 'Interim by score, its dividends in';
  const since = now - (race.interimAt ?? now);
  return `Interim by score, no dividends, ${since < 14_000 ? 'under 14 s' : since <= 90_000 ? '14-90 s' : 'over 90 s'} after listed`;
}

/** Near-jump odds latencies split by the race's advertised start (where the scheduler's weight changes). */
function oddsByStart(journal: readonly SimChange[], entries: readonly LogEntry[], world: SimWorld) {
  const seen = seenBy(entries);
  const out = { before: [] as number[], after: [] as number[] };
  const closes = closesOf(journal);
  for (const c of journal) {
    if (c.at < FROM + WARMUP || c.at > TO - 5 * MINUTE || bucketOf(c, closes) !== 'odds (last 10 min)')
      continue;
    const at = seen(c);
    const side = c.at >= world.summaryAt(c.raceId, c.at).startTime ? out.after : out.before;
    side.push(at === undefined ? Number.POSITIVE_INFINITY : at - c.at);
  }
  return out;
}

/** Minutes into the run, for traces. */
const at = (ms: number) => `+${((ms - FROM) / MINUTE).toFixed(2)} min`;

/**
 * Each counted status, results or dividends change racewire never showed, with its race's journal of such
 * changes, its fetches from a minute before, and the events racewire appended for it: why it was not seen.
 */
function unseenTraces(
  journal: readonly SimChange[],
  entries: readonly LogEntry[],
  fetched: readonly Fetched[],
) {
  const seen = seenBy(entries);
  const postJump = (c: SimChange) => c.type === 'status' || c.type === 'results' || c.type === 'dividends';
  return journal
    .filter((c) => postJump(c) && c.at >= FROM + WARMUP && c.at <= TO - 5 * MINUTE && seen(c) === undefined)
    .map((c) => {
      const changes = journal
        .filter((j) => j.raceId === c.raceId && postJump(j))
        .map((j) => `${j.type} ${JSON.stringify(j.detail)} ${at(j.at)}`);
      const fetches = fetched
        .filter((f) => f.raceId === c.raceId && f.at >= c.at - MINUTE)
        .map((f) => at(f.at));
      const events = entries
        .filter((e) => e.kind === 'event' && e.event.raceId === c.raceId && e.event.type.startsWith('race.'))
        .map((e) => (e.kind === 'event' ? `${e.event.type} ${at(Date.parse(e.timestamp))}` : ''));
      return `${c.type} of ${c.raceId} at ${at(c.at)} never seen; journal: ${changes.join(', ')}; fetches: ${fetches.slice(0, 8).join(' ')}; events: ${events.join(', ')}`;
    });
}

/** Each counted status change, with the first listing sent after it and the race's first fetch sent after that. */
function statusRequests(journal: readonly SimChange[], traced: readonly Traced[]) {
  return journal
    .filter((c) => c.type === 'status' && c.at >= FROM + WARMUP && c.at <= TO - 5 * MINUTE)
    .map((c) => {
      const listing = traced.find((r) => r.what === 'listing' && (r.sentAt ?? -1) >= c.at);
      const fetch = traced.find(
        (r) => r.what === c.raceId && r.sentAt !== undefined && r.sentAt >= (listing?.sentAt ?? c.at),
      );
      return { change: c, listing, fetch };
    });
}

/** Per status change: ms from the listing that showed it being sent to the race's fetch being sent. */
function listedToSent(journal: readonly SimChange[], traced: readonly Traced[]): number[] {
  return statusRequests(journal, traced).flatMap(({ listing, fetch }) =>
    listing?.sentAt !== undefined && fetch?.sentAt !== undefined ? [fetch.sentAt - listing.sentAt] : [],
  );
}

/**
 * For each status change seen after more than 7 s: the listing that showed it, the race's fetch (decided,
 * queued, sent) and every request sent between the two, with when it was decided and its priority.
 */
function slowStatusTraces(
  journal: readonly SimChange[],
  entries: readonly LogEntry[],
  traced: readonly Traced[],
) {
  const seen = seenBy(entries);
  const s = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  return statusRequests(journal, traced).flatMap(({ change: c, listing, fetch }) => {
    const seenAt = seen(c);
    if (seenAt !== undefined && seenAt - c.at <= 7_000) return [];
    const sub = (t: number | undefined) => (t === undefined ? undefined : t - c.at);
    const between = traced
      .filter(
        (r) =>
          r.sentAt !== undefined &&
          listing?.sentAt !== undefined &&
          r.sentAt > listing.sentAt &&
          r.sentAt < (fetch?.sentAt ?? Number.POSITIVE_INFINITY),
      )
      .map(
        (r) =>
          `${r.what === 'listing' ? 'listing' : 'race'}@${r.priority} decided +${s(sub(r.decidedAt))} sent +${s(sub(r.sentAt))}`,
      );
    return [
      `status ${JSON.stringify(c.detail)} of ${c.raceId} at ${at(c.at)}: listing sent +${s(sub(listing?.sentAt))}; fetch decided +${s(sub(fetch?.decidedAt))} queued +${s(sub(fetch?.queuedAt))} sent +${s(sub(fetch?.sentAt))} @${fetch?.priority}; seen +${s(sub(seenAt))}; between: ${between.join(', ')}`,
    ];
  });
}

/** Which event type shows each kind of simulator change. */
const EVENT_FOR: Partial<Record<SimChange['type'], string>> = {
  odds: 'odds.changed',
  scratching: 'runner.scratched',
  status: 'race.status_changed',
  results: 'race.results',
  dividends: 'race.dividends',
  start_time: 'race.start_time_changed',
};

/** When racewire appended the first event of the change's type (and runner) at or after the change. */
function seenBy(entries: readonly LogEntry[]): (change: SimChange) => number | undefined {
  const byRace = new Map<string, { type: string; at: number; entrantId?: string }[]>();
  for (const e of entries) {
    if (e.kind !== 'event' || !e.event.raceId) continue;
    const data = e.event.data as { runner?: { entrantId?: string } };
    const list = byRace.get(e.event.raceId) ?? [];
    list.push({ type: e.event.type, at: Date.parse(e.timestamp), entrantId: data.runner?.entrantId });
    byRace.set(e.event.raceId, list);
  }
  return (change) => {
    const type = EVENT_FOR[change.type];
    const entrantId = (change.detail.entrantId ?? change.detail.entrant_id) as string | undefined;
    return (byRace.get(change.raceId) ?? []).find(
      (e) =>
        e.type === type && e.at >= change.at && (!entrantId || !e.entrantId || e.entrantId === entrantId),
    )?.at;
  };
}

/** Most requests sent in any 60 s window (a budget violation is more than RPM). */
function maxInWindow(times: readonly number[]): number {
  let max = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[hi]! - times[lo]! >= MINUTE) lo++;
    max = Math.max(max, hi - lo + 1);
  }
  return max;
}

async function main() {
  const strategies: [string, (world: SimWorld) => { strategy: Strategy; interval?: number }, number][] = [
    ...SHARES.map((v): [string, (world: SimWorld) => { strategy: Strategy }, number] => [
      `racewire (earlyScratchingShare ${v})`,
      () => ({ strategy: (input) => pickNext(input, { ...DEFAULT_SETTINGS, earlyScratchingShare: v }) }),
      RACEWIRE_DISCOVERY_MS,
    ]),
  ];
  if (WITH_SCRAPER) {
    strategies.push([
      'budget-matched scraper',
      (world) => {
        const interval = budgetMatchedInterval(world, FROM, TO, RPM, SCRAPER_DISCOVERY_PER_MINUTE);
        return { strategy: scraper(interval), interval };
      },
      SCRAPER_DISCOVERY_MS,
    ]);
  }
  console.log(
    `freshness: ${HOURS} h from ${new Date(FROM).toISOString()} at ${RPM} req/min, seeds ${SEEDS.join(', ')}`,
  );
  let floors: RunResult['floor'][] = [];
  let realistic: RunResult['realistic'][] = [];
  for (const [name, make, discoveryMs] of strategies) {
    const runs: RunResult[] = [];
    for (const seed of SEEDS) runs.push(await run(seed, make, discoveryMs));
    floors = runs.map((r) => r.floor);
    realistic = runs.map((r) => r.realistic);
    const minutes = (TO - FROM + 2 * MINUTE) / MINUTE;
    console.log(
      `\n## ${name}: ${runs.map((r) => r.requests.length).join(', ')} requests (${runs
        .map((r) => `${((100 * r.requests.length) / (RPM * minutes)).toFixed(0)} %`)
        .join(
          ', ',
        )} of the budget), max ${runs.map((r) => maxInWindow(r.requests)).join(', ')} in any 60 s window${
        runs[0]?.interval ? `, every race every ${(runs[0].interval / 1000).toFixed(1)} s` : ''
      }, ${runs.map((r) => (r.wallMs / 1000).toFixed(0)).join(', ')} s wall`,
    );
    console.log(summarise(runs.map((r) => r.buckets)));
    for (const [i, r] of runs.entries()) {
      const cell = (key: string) => {
        const b = r.buckets.get(key);
        return b
          ? `${seconds(pct(b.ms, 50))}/${seconds(pct(b.ms, 95))} (n ${b.ms.length}, missed ${b.missed})`
          : 'n/a';
      };
      console.log(
        `seed ${SEEDS[i]} p50/p95: ${[...r.buckets.keys()]
          .sort()
          .map((k) => `${k} ${cell(k)}`)
          .join('; ')}`,
      );
      console.log(`requests by phase, seed ${SEEDS[i]}: ${phaseShares(r.phases)}`);
      // The goals compare unrounded figures: a p50 printed 3.3 s may be 3.25 s against a floor printed 2.0 s.
      const odds = r.buckets.get('odds (last 10 min)');
      if (odds)
        console.log(
          `near-jump odds to the ms (seed ${SEEDS[i]}): p50 ${pct(odds.ms, 50)} ms, p95 ${pct(odds.ms, 95)} ms; hindsight floor p50 ${r.floor.p50} ms (p50 x${(pct(odds.ms, 50) / r.floor.p50).toFixed(3)})`,
        );
      const { before, after } = r.oddsByStart;
      console.log(
        `near-jump odds (seed ${SEEDS[i]}) before the advertised start: n ${before.length}, p50/p95 ${seconds(pct(before, 50))}/${seconds(pct(before, 95))}; at or after it: n ${after.length}, p50/p95 ${seconds(pct(after, 50))}/${seconds(pct(after, 95))}`,
      );
      const over = r.bandGaps.filter((g) => g > 20 * MINUTE).length;
      console.log(
        `races 1-3 h out (seed ${SEEDS[i]}): ${r.bandGaps.length}, longest wait between visits p95 ${seconds(pct(r.bandGaps, 95))}, max ${seconds(Math.max(...r.bandGaps))}, ${over} over 20 min`,
      );
      for (const line of yieldLines(r.yields)) console.log(`yield (seed ${SEEDS[i]}): ${line}`);
      for (const line of r.bandOver) console.log(`1-3 h over 20 min (seed ${SEEDS[i]}): ${line}`);
      for (const line of r.unseen) console.log(`unseen (seed ${SEEDS[i]}): ${line}`);
      for (const line of r.slowStatus) console.log(`slow (seed ${SEEDS[i]}): ${line}`);
      console.log(
        `listing sent to the race's fetch sent (seed ${SEEDS[i]}, ${r.listedToSent.length} status changes): p50 ${seconds(pct(r.listedToSent, 50))}, p95 ${seconds(pct(r.listedToSent, 95))}, max ${seconds(Math.max(...r.listedToSent))}`,
      );
    }
  }
  console.log(
    `\nfloor (near-jump odds, the whole budget spread over the races within 10 min of their jump): p50 ${spread(
      floors.map((f) => f.p50),
    )}, p95 ${spread(floors.map((f) => f.p95))}; races there at each change: median ${spread(
      floors.map((f) => f.racesMedian),
      String,
    )}, max ${spread(
      floors.map((f) => f.racesMax),
      String,
    )}`,
  );
  console.log(
    `realistic floor (${RPM - REALISTIC_RESERVED_PER_MINUTE} req/min over the races Open within 10 min of their advertised start or past it): p50 ${spread(
      realistic.map((f) => f.p50),
    )}, p95 ${spread(realistic.map((f) => f.p95))}, per seed p50/p95 ${realistic
      .map((f) => `${seconds(f.p50)}/${seconds(f.p95)}`)
      .join(', ')}; races there: median ${spread(
      realistic.map((f) => f.racesMedian),
      String,
    )}`,
  );
  console.log(
    `hindsight floor per seed p50/p95: ${floors.map((f) => `${seconds(f.p50)}/${seconds(f.p95)}`).join(', ')}`,
  );
}

await main();
