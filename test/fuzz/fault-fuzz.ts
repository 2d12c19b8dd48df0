/**
 * The generative fault test (issue 12): a race day whose truth is known, built from the real Awapuni
 * payload (prices move, runners scratch, markets are withdrawn and reopen, the race closes, runs, is
 * amended, goes Final with dividends), delivered to the tracker as upstream would on a bad day: partial
 * lists, one missing row or price, stale and reordered payloads, bad rows, duplicates, a rewound upstream
 * clock, and racewire restarting on the same log. The oracle follows each fact the events speak of (a
 * status, a price, a scratching, the placings, a dividend, the favourite) through the truth: every emitted
 * value must be one the truth took, in the truth's order, no later than the truth had reached (so nothing
 * false and nothing twice), and at the end every fact's last emitted value is the truth's (so every true
 * change got through). Pure and seeded: a failing seed replays exactly.
 */
import type { DetectedRaceEvent } from '@racewire/client/protocol';
import type { NewEntry } from '../../src/events/envelope.js';
import { type EventResponse, eventResponseSchema } from '../../src/upstream/schemas.js';
import { favouriteOf } from '../../src/watch/detect/detect-odds.js';
import { protestStatus } from '../../src/watch/detect/detect-race.js';
import { normaliseEvent, type RaceDocument } from '../../src/watch/track/normalise.js';
import { type RaceState, resumedState, trackRace } from '../../src/watch/track/track-race.js';
import type { TrustOptions } from '../../src/watch/track/trust.js';
import { EXTRA_POOLS } from '../watch/real-variants.js';
import { type Loose, openPayload, RACE_ID, realPayload } from '../watch/support.js';
import {
  MarketOracle,
  type MarketPlan,
  marketBase,
  marketStep,
  moverClaim,
  moverFact,
  planMarket,
} from './market-truth.js';
import { countStructures, noStructures, type Structure } from './structures.js';

const MARKETS = ['fixed_win', 'fixed_place', 'pool_win', 'pool_place'] as const;
const T0 = Date.parse('2025-07-17T00:20:00Z');

/** mulberry32: small, seeded, good enough to pick faults. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}
type Rng = ReturnType<typeof rng>;

/** The members the detectors read, from the real payload: the rest (form, tote trends, ...) only costs time. */
const KEPT_RUNNER = [
  'entrant_id',
  'name',
  'runner_number',
  'barrier',
  'is_scratched',
  'scratch_time',
  'odds',
  'favourite',
  'jockey',
  'flucs',
];
function slim(data: Loose): Loose {
  const { race, runners, results, dividends, tote_pools } = data;
  return {
    race,
    runners: runners.map((r: Loose) =>
      Object.fromEntries(KEPT_RUNNER.filter((k) => k in r).map((k) => [k, r[k]])),
    ),
    results,
    dividends,
    tote_pools,
  };
}

interface TruthStep {
  at: number;
  data: Loose;
}

const ISO = (ms: number) => new Date(ms).toISOString().replace('Z', '000000Z');

interface TruthShape {
  /** The results list only the top four with margin_length 0, as issue 22's second real Final. */
  topFour: boolean;
  /** The race also has the doubles, treble and Duet of extra-pools.json and their dividend rows. */
  extraPools: boolean;
  /** Third and fourth dead-heat: two result rows share position 3. */
  deadHeat: boolean;
  /** A protest lodged while Interim (2nd against 1st), then upheld (they swap) or dismissed at Final. */
  protest: 'upheld' | 'dismissed' | null;
  /** The mover, money tracker and bets of market-truth.ts. */
  market: (closeAt: number) => MarketPlan;
}

/** The true race day: `steps` states of the real race, each a few seconds after the last. */
function truthOf(r: Rng, steps: number, shape: TruthShape): TruthStep[] {
  const { topFour, extraPools } = shape;
  const base = slim(openPayload().data as Loose);
  if (extraPools) base.tote_pools = [...base.tote_pools, ...structuredClone(EXTRA_POOLS.tote_pools)];
  const extra: Loose[] = extraPools ? EXTRA_POOLS.dividends : [];
  let data: Loose = base;
  let at = T0;
  const out: TruthStep[] = [{ at, data }];
  const closeAt = Math.floor(steps * 0.55);
  const interimAt = closeAt + 3;
  const finalAt = interimAt + Math.floor(steps * 0.2);
  const drawnAmendAt = r.chance(0.5) ? r.int(interimAt + 2, finalAt + 3) : -1;
  // With a protest, its decision is the race's only amendment.
  const amendAt = shape.protest ? -1 : drawnAmendAt;
  const protestAt = interimAt + 2;
  const real = realPayload().data as Loose;
  const market = shape.market(closeAt);
  marketBase(base, real, market);
  const withdrawn = new Map<string, number>();
  for (let i = 1; i < steps; i++) {
    at += r.int(4, 12) * 1000;
    data = structuredClone(data);
    const live = data.runners.filter((x: Loose) => !x.is_scratched);
    if (i < closeAt) {
      for (let k = r.int(0, 2); k > 0; k--) {
        const runner = r.pick(live) as Loose;
        const market = r.pick(MARKETS);
        const key = `${runner.entrant_id}:${market}`;
        if (withdrawn.has(key)) {
          if (i >= (withdrawn.get(key) as number)) {
            runner.odds[market] = Math.round(r.int(120, 3000)) / 100;
            withdrawn.delete(key);
          }
        } else if (r.chance(0.06)) {
          runner.odds[market] = null; // a market truly withdrawn, reopened a few steps later
          withdrawn.set(key, i + r.int(2, 6));
        } else if (runner.odds[market] !== null) {
          runner.odds[market] = Math.round(r.int(120, 3000)) / 100;
        }
      }
      marketStep(data, real, i, market);
      if (r.chance(0.04) && live.length > 5) {
        const runner = r.pick(live) as Loose;
        runner.is_scratched = true;
        runner.scratch_time = Math.floor(at / 1000);
      }
    }
    if (i === closeAt) data.race.status = 'Closed';
    if (i === interimAt) {
      data.race.status = 'Interim';
      data.race.actual_start = Math.floor(at / 1000) - 100;
      const order = data.runners.filter((x: Loose) => !x.is_scratched).sort(() => r.next() - 0.5);
      data.results = order.slice(0, topFour ? 4 : order.length).map((x: Loose, k: number) => ({
        position: k + 1,
        name: x.name,
        barrier: x.barrier,
        runner_number: x.runner_number,
        margin_length: topFour ? 0 : k * 0.5,
        entrant_id: x.entrant_id,
      }));
      if (shape.deadHeat && data.results.length >= 4) data.results[3].position = 3;
    }
    if (i === interimAt + 1)
      data.dividends = structuredClone(
        [...real.dividends, ...extra].filter((d: Loose) => d.status === 'Interim'),
      );
    if (shape.protest && (i === protestAt || i === finalAt)) protestStep(data, shape.protest, i === finalAt);
    if (i === amendAt && Array.isArray(data.results) && data.results.length > 1) {
      const [a, b] = data.results;
      [a.position, b.position] = [b.position, a.position];
    }
    if (i === finalAt) {
      data.race.status = 'Final';
      // The Final rows beside the Interim ones, interleaved in the real payload's order (IFIFFFFIIIFIIF).
      data.dividends = structuredClone(
        real.dividends.flatMap((x: Loose, k: number) => (extra[k] ? [x, extra[k]] : [x])),
      );
    }
    out.push({ at, data });
  }
  return out;
}

/**
 * The protest's change to `data`: lodged (`protest: true`, the reason without its decision, as the
 * simulator words a pending one), or decided at Final in the real list's words, an upheld one swapping
 * first and second.
 */
function protestStep(data: Loose, decision: 'upheld' | 'dismissed', decided: boolean): void {
  const [first, second] = data.results as Loose[];
  if (!first || !second) return;
  const against = `2nd (#${second.runner_number}) vs 1st (#${first.runner_number})`;
  data.race.protest = true;
  if (!decided) data.race.protest_reason = `Protest ${against}`;
  else if (decision === 'dismissed') data.race.protest_reason = `Protest DISMISSED - ${against}`;
  else {
    data.race.protest_reason = `Protest UPHELD ${against}`;
    [first.position, second.position] = [second.position, first.position];
  }
}

// ---- The facts the oracle follows -------------------------------------------------------------------

const usable = (v: unknown) => (typeof v === 'number' && v > 0 ? v : null);
const placingsKey = (results: unknown) =>
  Object.values((results ?? {}) as Record<string, Loose>)
    .map((p: Loose) => `${p.entrantId ?? p.entrant_id}:${p.position}`)
    .sort()
    .join(',');

/** Every fact of a document, by name. */
function factsOf(doc: RaceDocument): Map<string, unknown> {
  const out = new Map<string, unknown>();
  out.set('status', doc.race.status);
  out.set('jumped', (doc.race.actual_start ?? 0) > 0 || ['Interim', 'Final'].includes(doc.race.status));
  out.set('placings', placingsKey(doc.results) || undefined);
  out.set('favourite', favouriteOf(doc)?.runner.entrant_id);
  out.set('protest', protestStatus(doc.race));
  const mover = moverFact(doc);
  if (mover) out.set('mover', mover);
  for (const runner of Object.values(doc.runners) as Loose[]) {
    out.set(`present:${runner.entrant_id}`, true);
    out.set(`scratched:${runner.entrant_id}`, runner.is_scratched === true);
    if (runner.is_scratched) continue;
    for (const m of MARKETS) out.set(`odds:${runner.entrant_id}:${m}`, usable(runner.odds?.[m]));
  }
  for (const row of Object.values((doc.dividends ?? {}) as Record<string, Loose>)) {
    out.set(`dividend:${row.id}`, row.dividend);
  }
  return out;
}

/** The facts an event asserts, as [fact, value] pairs. */
function claimsOf(event: DetectedRaceEvent): Array<[string, unknown]> {
  const d = event.data as Loose;
  switch (event.type) {
    case 'race.status_changed':
      return [['status', d.to]];
    case 'race.jumped':
      return [['jumped', true]];
    case 'runner.scratched':
      return [[`scratched:${d.runner.entrantId}`, true]];
    case 'runner.reinstated':
      return [[`scratched:${d.runner.entrantId}`, false]];
    case 'runner.added':
      return [[`present:${d.runner.entrantId}`, true]];
    case 'runner.removed':
      return [[`present:${d.runner.entrantId}`, undefined]];
    case 'odds.changed':
      return [[`odds:${d.runner.entrantId}:${d.market}`, d.to]];
    case 'odds.pools_changed':
      // A batch asserts each change it holds, judged as if it were its own event.
      return d.changes.map((c: Loose) => [`odds:${c.runner.entrantId}:${c.market}`, c.to]);
    case 'race.protest':
      return [['protest', d.status === 'resolved' ? 'none' : d.status]];
    case 'race.favourite_changed':
      return [['favourite', d.to.entrantId]];
    case 'race.mover_changed':
      return [['mover', moverClaim(d)]];
    case 'race.results':
      // `final` confirms the published placings; it asserts them only when it is the first results event.
      return d.kind === 'final' && d.changes.length === 0
        ? [['placings?', placingsKey(d.results)]]
        : [['placings', placingsKey(d.results)]];
    case 'race.dividends':
      return d.dividends.map((row: Loose) => [`dividend:${row.id}`, row.dividend]);
    default:
      return [[event.type, 'never in this truth']];
  }
}

interface FactHistory {
  /** The values the fact took, in order, with the truth step each was first true. */
  values: Array<{ step: number; value: unknown }>;
  /** Index into `values` of the value the event stream stands at. */
  at: number;
}

function histories(truthDocs: RaceDocument[]): Map<string, FactHistory> {
  const out = new Map<string, FactHistory>();
  truthDocs.forEach((doc, step) => {
    const facts = factsOf(doc);
    for (const [name, history] of out) {
      if (facts.has(name)) continue;
      // A scratched runner's prices are not followed (upstream keeps them stale): they stay as they were.
      facts.set(name, name.startsWith('odds:') ? history.values.at(-1)?.value : undefined);
    }
    for (const [name, value] of facts) {
      let history = out.get(name);
      if (!history) {
        history = { values: step === 0 ? [] : [{ step: 0, value: undefined }], at: 0 };
        out.set(name, history);
      }
      if (history.values.length === 0 || history.values.at(-1)?.value !== value)
        history.values.push({ step, value });
    }
  });
  return out;
}

// ---- Faults -----------------------------------------------------------------------------------------

type Fault =
  | 'runner_missing'
  | 'result_row_missing'
  | 'results_vanished'
  | 'market_nulled'
  | 'dividend_missing'
  | 'stale'
  | 'duplicate'
  | 'bad_dividend_row'
  | 'bad_result_row'
  | 'bad_runner_row'
  | 'truncated'
  | 'rewound_clock'
  | 'restart';

const FAULTS: readonly Fault[] = [
  'runner_missing',
  'result_row_missing',
  'results_vanished',
  'market_nulled',
  'dividend_missing',
  'stale',
  'duplicate',
  'bad_dividend_row',
  'bad_result_row',
  'bad_runner_row',
  'truncated',
  'rewound_clock',
  'restart',
];

function faulty(r: Rng, fault: Fault, data: Loose): Loose {
  const d = structuredClone(data);
  const idx = (list: unknown[]) => r.int(0, list.length - 1);
  switch (fault) {
    case 'runner_missing':
      d.runners.splice(idx(d.runners), 1);
      break;
    case 'result_row_missing':
      if (d.results?.length) d.results.splice(idx(d.results), 1);
      break;
    case 'results_vanished':
      d.results = r.chance(0.5) ? [] : null;
      break;
    case 'market_nulled': {
      const runner = r.pick(d.runners) as Loose;
      runner.odds[r.pick(MARKETS)] = r.pick([null, 0, undefined]);
      break;
    }
    case 'dividend_missing':
      if (d.dividends?.length) d.dividends.splice(idx(d.dividends), 1);
      break;
    case 'bad_dividend_row':
      if (d.dividends?.length) d.dividends[idx(d.dividends)].dividend = null;
      break;
    case 'bad_result_row':
      if (d.results?.length) delete d.results[idx(d.results)].entrant_id;
      break;
    case 'bad_runner_row':
      d.runners[idx(d.runners)].barrier = 'wide';
      break;
    case 'truncated':
      d.runners = d.runners.slice(0, 3);
      break;
  }
  return d;
}

// ---- One case ---------------------------------------------------------------------------------------

export interface CaseResult {
  seed: number;
  failures: string[];
  payloads: number;
  events: number;
  faults: number;
  /** Race-clock ms from a truth change to its event: believed at once, and confirmed first. */
  latency: { firstSight: number[]; confirmed: number[] };
  /** Payloads served holding each of the real structures (structures.ts). */
  served: Record<Structure, number>;
}

export function runCase(
  seed: number,
  opts: { steps?: number; faultRate?: number; trackOptions?: TrustOptions } = {},
): CaseResult {
  const r = rng(seed);
  // The shape comes from the seed, not the stream, so other draws stay as they were: odd seeds list the
  // top four only, extra pools when seed % 4 >= 2, outside-field entrants when seed % 8 >= 4, the bets
  // when seed % 16 >= 8, a dead heat on every third seed, a protest while Interim when seed % 5 == 2
  // (upheld when seed % 10 == 2, else dismissed); the market's steps from a stream of their own.
  const truth = truthOf(r, opts.steps ?? 60, {
    topFour: seed % 2 === 1,
    extraPools: seed % 4 >= 2,
    deadHeat: seed % 3 === 0,
    protest: seed % 5 !== 2 ? null : seed % 10 === 2 ? 'upheld' : 'dismissed',
    market: (closeAt) => planMarket(rng(seed ^ 0x6d61726b), closeAt, seed % 8 >= 4, seed % 16 >= 8),
  });
  const truthDocs = truth.map((s) =>
    normaliseEvent({ header: { title: 't' }, data: s.data } as EventResponse),
  );
  const facts = histories(truthDocs);
  const failures: string[] = [];
  const marketOracle = new MarketOracle(
    seed,
    truth.map((s) => s.data),
    truthDocs,
  );
  const latency = { firstSight: [] as number[], confirmed: [] as number[] };
  // The race's state is the process's: a restart rebuilds it from the log (the pipeline's resume path).
  let state: RaceState | undefined;
  let payloads = 0;
  const served = noStructures();
  let eventCount = 0;
  let faults = 0;
  let rewind = 0;
  let lastPlacings: string | undefined;
  let lastAppendedAt = truth[0]!.at;
  // The log the race's entries went to: a restart resumes from it.
  const appended: NewEntry[] = [];

  const deliver = (data: Loose, generatedAt: number, step: number, now: number) => {
    payloads++;
    countStructures(data, served);
    const raw = JSON.parse(
      JSON.stringify({ header: { title: 'Event', generated_time: ISO(generatedAt) }, data }),
    );
    const parsed = eventResponseSchema.safeParse(raw);
    if (!parsed.success) return;
    const result = trackRace(state, parsed.data, now, { ...opts.trackOptions, raceId: RACE_ID });
    state = result.state;
    if (result.outcome.kind !== 'changed') return;
    lastAppendedAt = now;
    appended.push(...result.entries);
    for (const entry of result.entries) {
      if (entry.kind !== 'event') continue;
      eventCount++;
      judge(entry.event as DetectedRaceEvent, step, now);
    }
  };

  function judge(event: DetectedRaceEvent, step: number, now: number) {
    const market = marketOracle.judge(event, step);
    if (market) {
      failures.push(...market);
      return;
    }
    for (const [name, value] of claimsOf(event)) {
      const confirmOnly = name === 'placings?';
      const history = facts.get(confirmOnly ? 'placings' : name);
      if (!history) {
        failures.push(`seed ${seed}: ${event.type} about ${name}, which the truth never had`);
        continue;
      }
      if (confirmOnly && lastPlacings === value) continue;
      if (name.startsWith('placings')) {
        // Placings are true when they are the top of the truth's placings at a step reached (a list cut
        // short at the tail is true as far as it goes); the same placings twice are not.
        let k = history.at;
        while (
          k < history.values.length &&
          !(history.values[k]!.step <= step && topOf(String(value), history.values[k]!.value))
        )
          k++;
        if (value === lastPlacings || k >= history.values.length) {
          failures.push(
            `seed ${seed}: false ${event.type}: placings ${value} (stood at ${lastPlacings}, truth step ${step})`,
          );
          continue;
        }
        const delay = now - (truth[history.values[k]!.step]?.at ?? now);
        (lastPlacings !== undefined ? latency.confirmed : latency.firstSight).push(delay);
        history.at = k;
        lastPlacings = String(value);
        continue;
      }
      let k = history.at + 1;
      while (
        k < history.values.length &&
        !(history.values[k]!.value === value && history.values[k]!.step <= step)
      )
        k++;
      if (k >= history.values.length) {
        const was = history.values[history.at]?.value;
        failures.push(
          `seed ${seed}: false ${event.type}: ${name} = ${JSON.stringify(value)} (stood at ${JSON.stringify(was)}, truth step ${step})`,
        );
        continue;
      }
      history.at = k;
      const delay = now - (truth[history.values[k]!.step]?.at ?? now);
      (isRetraction(name, history, k) ? latency.confirmed : latency.firstSight).push(delay);
    }
  }

  // The first sight is clean (nobody can judge a first payload); then one or two polls per truth step.
  deliver(truth[0]!.data, truth[0]!.at, 0, truth[0]!.at);
  for (let i = 1; i < truth.length; i++) {
    const step = truth[i]!;
    const end = truth[i + 1]?.at ?? step.at + 10_000;
    for (let poll = 0, n = r.int(1, 2); poll < n; poll++) {
      const now = step.at + Math.floor(((end - step.at) * poll) / n);
      if (rewind > 0) {
        // The upstream's clock went back: it serves earlier states, generated at those earlier times.
        const j = Math.max(0, i - rewind);
        rewind--;
        deliver(truth[j]!.data, truth[j]!.at, i, now);
        continue;
      }
      if (!r.chance(opts.faultRate ?? 0.3)) {
        deliver(step.data, now, i, now);
        continue;
      }
      faults++;
      const fault = r.pick(FAULTS);
      if (fault === 'restart') {
        // A new process: the document comes back from the log, and the order from its last append.
        if (state) state = resumedState(state.document, { lastAppendedAt, entries: appended });
      } else if (fault === 'stale') {
        const j = r.int(Math.max(0, i - 5), i - 1);
        deliver(truth[j]!.data, truth[j]!.at, i, now);
      } else if (fault === 'duplicate') {
        deliver(step.data, now, i, now);
        deliver(step.data, now, i, now);
      } else if (fault === 'rewound_clock') {
        rewind = r.int(2, Math.min(8, i));
      } else {
        deliver(faulty(r, fault, step.data), now, i, now);
      }
    }
  }
  // Upstream settles: the final truth, polled long enough for every confirmation to complete.
  const last = truth.length - 1;
  for (let k = 1; k <= 5; k++) {
    const now = truth[last]!.at + k * 10_000;
    deliver(truth[last]!.data, now, last, now);
  }

  const finalFacts = factsOf(truthDocs[last]!);
  for (const [name, history] of facts) {
    if (name.startsWith('odds:') && !finalFacts.has(name)) continue; // scratched: prices not followed
    const emitted = name === 'placings' ? lastPlacings : history.values[history.at]?.value;
    const truthNow = history.values.at(-1)?.value;
    if (emitted !== truthNow && !(name === 'favourite' && truthNow === undefined)) {
      failures.push(
        `seed ${seed}: missed: ${name} ends at ${JSON.stringify(truthNow)}, events left it at ${JSON.stringify(emitted)}`,
      );
    }
  }
  failures.push(...marketOracle.missed());
  return { seed, failures, payloads, events: eventCount, faults, latency, served };
}

/** Whether `emitted` (`id:position` pairs) is `truth` or its top positions 1..n without a gap. */
function topOf(emitted: string, truth: unknown): boolean {
  if (typeof truth !== 'string' || truth === '') return false;
  const all = new Set(truth.split(','));
  const rows = emitted.split(',');
  if (!rows.every((row) => all.has(row))) return false;
  const cut = Math.max(...rows.map((row) => Number(row.split(':')[1])));
  return [...all].filter((row) => Number(row.split(':')[1]) <= cut).length === rows.length;
}

/** Whether reaching `values[k]` took something back (a claim confirmed first) rather than adding. */
function isRetraction(name: string, history: FactHistory, k: number): boolean {
  const before = history.values[k - 1]?.value;
  const after = history.values[k]?.value;
  const known = (v: unknown) => v !== null && v !== undefined && v !== '';
  return (known(before) && !known(after)) || (name === 'placings' && known(before));
}
