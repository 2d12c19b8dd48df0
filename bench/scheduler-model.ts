/**
 * The scheduler alone over the simulator's story: no payloads, no pipeline, one request slot every
 * 60 / rpm seconds. Each slot goes to discovery (one page per day window that is due) or to the race the
 * strategy picks, whose status and dividend stage are read from the simulated world at that instant. A
 * change counts as seen at the first fetch of its race at or after it. Fast enough to sweep the
 * trade-off setting over several seeds; bench/freshness.ts measures the chosen points end to end.
 *
 *   npx tsx bench/scheduler-model.ts [--hours 3] [--seeds 7,8,9] [--shares 0.12] [--rpm 100]
 *
 * `--shares`: early-scratching shares to compare (SCHEDULER_EARLY_SCRATCHING_SHARE; default the production one).
 */
import type { Clock } from '../src/clock.js';
import { SimWorld } from '../src/simulator/index.js';
import type { Meeting } from '../src/upstream/schemas.js';
import { applyMeetings } from '../src/watch/schedule/discovery.js';
import {
  AHEAD_INTERVAL_MS,
  currentWindows,
  type DayWindow,
  dayCadence,
  windowDueAt,
} from '../src/watch/schedule/discovery-windows.js';
import { DEFAULT_SETTINGS } from '../src/watch/schedule/poll-policy.js';
import { type Pick, pickNext, type SchedulerInput, usesTurn } from '../src/watch/schedule/scheduler.js';
import { FINISHED_STATUSES, type RaceWatch } from '../src/watch/track/race-watch.js';
import { budgetMatchedInterval, scraper } from './baseline-strategies.js';
import {
  arg,
  BENCH_DAY,
  BENCH_FROM,
  type Fetched,
  firstFetchAfter,
  latencyBuckets,
  nearJumpFloor,
  phaseOf,
  spread,
  summarise,
} from './support/freshness-metrics.js';

const HOURS = Number(arg('hours', '3'));
const RPM = Number(arg('rpm', '100'));
const SEEDS = arg('seeds', '7,8,9').split(',').map(Number);
const SHARES = arg('shares', String(DEFAULT_SETTINGS.earlyScratchingShare)).split(',').map(Number);
const FROM = BENCH_FROM;
const TO = FROM + HOURS * 3_600_000;
const SLOT = 60_000 / RPM;
const DISCOVERY_MS = 6_000;

type Strategy = (input: SchedulerInput) => Pick;

function run(seed: number, makeStrategy: (world: SimWorld) => Strategy, discoveryMs: number) {
  // Time moves only here, one slot at a time; nothing in the world sleeps.
  let now = FROM - 2 * 60_000;
  const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
  const world = new SimWorld(seed, Date.parse(BENCH_DAY), clock);
  let races = new Map<string, RaceWatch>();
  let windows = new Map<string, DayWindow>();
  const strategy = makeStrategy(world);
  const cadences = { liveIntervalMs: discoveryMs, aheadIntervalMs: AHEAD_INTERVAL_MS };
  const fetches: Fetched[] = [];
  const share: Record<string, number> = {};
  let requests = 0;
  let racePicks = 0;
  for (let t = clock.now(); t < TO; t += SLOT) {
    now = t;
    windows = currentWindows(windows, t);
    const due = [...windows.values()].filter((w) => windowDueAt(w, races, t, cadences) <= t);
    const pick = strategy({
      races: races.values(),
      now: t,
      inFlight: new Set(),
      subscribers: new Map(),
      discoveryDueAt: due.length
        ? t
        : Math.min(...[...windows.values()].map((w) => windowDueAt(w, races, t, cadences))),
      discoveryInFlight: false,
      racePicks,
    });
    if (pick.kind === 'discovery') {
      // One page (up to 200 meetings) per due day: one slot for the first, the rest in the next slots.
      for (const w of due) {
        const date = Date.parse(w.date);
        const meetings: Meeting[] = world
          .meetingsDated(date, date, t)
          .filter((m) => world.listed(m, t))
          .map((m) => ({
            meeting: m.id,
            name: m.name,
            date: w.date,
            category: m.category,
            country: m.country,
            races: m.races.map((r) => {
              const s = world.summaryAt(r.id, t);
              return {
                id: r.id,
                race_number: r.raceNumber,
                name: r.name,
                start_time: new Date(s.startTime).toISOString(),
                status: s.status,
                country: m.country,
              };
            }),
          })) as Meeting[];
        races = applyMeetings(races, meetings, t).races;
        const raceIds = meetings.flatMap((m) => m.races.map((r) => r.id));
        // As the poller does: a day listed with every race over is settled and never listed again.
        const listedSettled = dayCadence({ ...w, raceIds, listedSettled: true }, races, t) === 'settled';
        windows.set(w.date, { ...w, refreshedAt: t, raceIds, listedSettled });
        requests++;
        share.discovery = (share.discovery ?? 0) + 1;
      }
      t += SLOT * (due.length - 1);
    } else if (pick.kind === 'race') {
      requests++;
      if (usesTurn(pick, racePicks)) racePicks++;
      const race = races.get(pick.raceId)!;
      const { state } = world.stateAt(race.raceId, t);
      const dividends = state.dividends.some((d) => d.status === 'Final')
        ? 'final'
        : state.dividends.length
          ? 'interim'
          : 'none';
      races.set(race.raceId, {
        ...race,
        status: state.status,
        lastFetchAt: t,
        lastGoodAt: t,
        dirty: false,
        dividends,
        finishedAt: race.finishedAt ?? (FINISHED_STATUSES.has(state.status) ? t : undefined),
      });
      fetches.push({ raceId: race.raceId, at: t });
      const phase = phaseOf(race.status, race.startTime - t);
      share[phase] = (share[phase] ?? 0) + 1;
    }
  }
  now = TO;
  const journal = world.journal();
  return {
    requests,
    share,
    buckets: latencyBuckets(journal, firstFetchAfter(fetches), FROM, TO),
    floor: nearJumpFloor(journal, RPM, FROM, TO),
  };
}

const strategies: [string, (world: SimWorld) => Strategy, number][] = [
  ...SHARES.map((v): [string, (world: SimWorld) => Strategy, number] => [
    `racewire earlyScratchingShare=${v}`,
    () => (input) => pickNext(input, { ...DEFAULT_SETTINGS, earlyScratchingShare: v }),
    DISCOVERY_MS,
  ]),
  ['budget-matched scraper', (world) => scraper(budgetMatchedInterval(world, FROM, TO, RPM, 2)), 60_000],
];
console.log(
  `scheduler model: ${HOURS} h from ${new Date(FROM).toISOString()}, ${RPM} req/min, seeds ${SEEDS}`,
);
for (const [name, make, discoveryMs] of strategies) {
  const runs = SEEDS.map((seed) => run(seed, make, discoveryMs));
  console.log(`\n## ${name}: ${runs.map((r) => r.requests).join(', ')} requests`);
  console.log(summarise(runs.map((r) => r.buckets)));
  const phases = [...new Set(runs.flatMap((r) => Object.keys(r.share)))].sort();
  console.log(
    `requests by phase: ${phases
      .map(
        (p) =>
          `${p} ${spread(
            runs.map((r) => (100 * (r.share[p] ?? 0)) / r.requests),
            (x) => `${x.toFixed(0)} %`,
          )}`,
      )
      .join(', ')}`,
  );
  if (name === 'budget-matched scraper') {
    console.log(
      `\nfloor (near-jump odds): p50 ${spread(runs.map((r) => r.floor.p50))}, p95 ${spread(runs.map((r) => r.floor.p95))}; races within 10 min of their jump: median ${spread(
        runs.map((r) => r.floor.racesMedian),
        String,
      )}, max ${spread(
        runs.map((r) => r.floor.racesMax),
        String,
      )}`,
    );
  }
}
