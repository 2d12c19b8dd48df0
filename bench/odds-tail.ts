/**
 * Diagnostic (issue 26): where the near-jump odds tail comes from. One racewire run per seed of the freshness
 * drive; each near-jump odds move is seen at its race's first fetch after it. Prints latency by minutes to the
 * advertised start and by minutes to the real jump, the fetch gap around the slow moves, and requests per
 * phase per minute.
 *
 * With `--slow S`, each move seen later than S seconds: its race, where the race stood, how many races were near
 * their jump, and what the requests between the race's fetch before the move and the one after went to.
 *
 *   npx tsx bench/odds-tail.ts --seed 7 [--hours 1] [--slow 7.8]
 */
import { DEFAULT_SETTINGS } from '../src/watch/schedule/poll-policy.js';
import { pickNext } from '../src/watch/schedule/scheduler.js';
import { drive } from './support/freshness-drive.js';
import {
  arg,
  BENCH_FROM,
  bucketOf,
  closesOf,
  type Fetched,
  pct,
  phaseOf,
} from './support/freshness-metrics.js';

const SEED = Number(arg('seed', '7'));
const HOURS = Number(arg('hours', '1'));
const MINUTE = 60_000;
const FROM = BENCH_FROM;
const TO = FROM + HOURS * 3_600_000;
/** Why a request went out: where its race stood, or that it was dirty (listed change) or on its dividends deadline. */
type Why = 'near' | 'late' | 'band' | 'far' | 'post' | 'dirty' | 'dividends' | 'listing';
const fetched: (Fetched & { toStart: number; open: boolean; why: Why })[] = [];
/** The flags of each race's last pick, until its request is sent. */
const picked = new Map<string, Why>();
const phases: Record<string, number> = {};
/** Listing requests in the measured window by day and page, and when each listing was sent. */
const listings: Record<string, number> = {};
const listed: number[] = [];
const { world, journal } = await drive({
  seed: SEED,
  from: FROM - 2 * MINUTE,
  to: TO,
  rpm: 100,
  concurrency: 2,
  discoveryIntervalMs: 6_000,
  strategy: () => (input) => {
    const pick = pickNext(input, DEFAULT_SETTINGS);
    if (pick.kind === 'race' && (pick.urgent || pick.deadline))
      picked.set(pick.raceId, pick.deadline ? 'dividends' : 'dirty');
    return pick;
  },
  onSend: (url, w, now) => {
    const raceId = /\/events\/([^/?]+)/.exec(url.pathname)?.[1];
    const counted = now >= FROM + 20 * MINUTE && now <= TO - 5 * MINUTE;
    if (!raceId) {
      if (counted) phases.discovery = (phases.discovery ?? 0) + 1;
      const key = `discovery ${url.searchParams.get('date_from')} offset ${url.searchParams.get('offset') ?? 0}`;
      if (counted) listings[key] = (listings[key] ?? 0) + 1;
      listed.push(now);
      return;
    }
    const s = w.summaryAt(raceId, now);
    const p = phaseOf(s.status, s.startTime - now);
    if (counted) phases[p] = (phases[p] ?? 0) + 1;
    const toStart = s.startTime - now;
    const open = s.status === 'Open';
    const why = picked.get(raceId) ?? whereOf(open, toStart);
    picked.delete(raceId);
    fetched.push({ raceId, at: now, toStart, open, why });
  },
});
function whereOf(open: boolean, toStart: number): Why {
  if (!open) return 'post';
  if (toStart <= 10 * MINUTE) return 'near';
  return toStart <= 60 * MINUTE ? 'late' : toStart <= 180 * MINUTE ? 'band' : 'far';
}
const byRace = new Map<string, number[]>();
for (const f of fetched) byRace.set(f.raceId, [...(byRace.get(f.raceId) ?? []), f.at]);
const closes = closesOf(journal);
interface Move {
  lat: number;
  toStart: number;
  toJump: number;
  gap: number;
  sinceFetch: number;
  raceId: string;
  at: number;
}
const moves: Move[] = [];
for (const c of journal) {
  if (c.at < FROM + 20 * MINUTE || c.at > TO - 5 * MINUTE || bucketOf(c, closes) !== 'odds (last 10 min)')
    continue;
  const fs = byRace.get(c.raceId) ?? [];
  const i = fs.findIndex((t) => t >= c.at);
  const next = i >= 0 ? fs[i]! : Number.POSITIVE_INFINITY;
  const prev = i > 0 ? fs[i - 1]! : i === -1 && fs.length ? fs[fs.length - 1]! : Number.NaN;
  moves.push({
    lat: next - c.at,
    toStart: world.summaryAt(c.raceId, c.at).startTime - c.at,
    toJump: closes.get(c.raceId)! - c.at,
    gap: next - prev,
    sinceFetch: c.at - prev,
    raceId: c.raceId,
    at: c.at,
  });
}
const s = (ms: number) => `${(ms / 1000).toFixed(1)}`;
const lats = moves.map((m) => m.lat);
const p95 = pct(lats, 95);
console.log(`seed ${SEED}: ${moves.length} moves, p50 ${s(pct(lats, 50))} p95 ${s(p95)}`);
const table = (name: string, key: (m: Move) => number) => {
  const groups = new Map<number, Move[]>();
  for (const m of moves) groups.set(key(m), [...(groups.get(key(m)) ?? []), m]);
  console.log(`\nby ${name}: bucket n p50 p95 mean-gap slow(>p95 overall)`);
  for (const k of [...groups.keys()].sort((a, b) => a - b)) {
    const g = groups.get(k)!;
    const l = g.map((m) => m.lat);
    const meanGap = g.reduce((a, m) => a + m.gap, 0) / g.length;
    console.log(
      `${k}\t${g.length}\t${s(pct(l, 50))}\t${s(pct(l, 95))}\t${s(meanGap)}\t${g.filter((m) => m.lat > p95).length}`,
    );
  }
};
table('minutes to advertised start (floor)', (m) => Math.floor(m.toStart / MINUTE));
table('minutes to real jump (floor)', (m) => Math.floor(m.toJump / MINUTE));
console.log('\nslowest 40: lat toStart toJump gap sinceFetch race');
for (const m of [...moves].sort((a, b) => b.lat - a.lat).slice(0, 40))
  console.log(`${s(m.lat)}\t${s(m.toStart)}\t${s(m.toJump)}\t${s(m.gap)}\t${s(m.sinceFetch)}\t${m.raceId}`);
const total = Object.values(phases).reduce((a, b) => a + b, 0);
console.log(`\nrequests (measured window, ${total}):`);
for (const [k, v] of Object.entries(phases).sort())
  console.log(`${k}\t${v}\t${((100 * v) / total).toFixed(1)} %`);
// Per bucket of minutes to the advertised start: race-seconds Open there (to the real jump), fetches, moves.
const raceSec = new Map<number, number>();
const fetchN = new Map<number, number>();
const moveN = new Map<number, number>();
const lo = FROM + 20 * MINUTE;
const hi = TO - 5 * MINUTE;
for (const [raceId, close] of closes) {
  const start = world.summaryAt(raceId, close).startTime;
  for (let t = Math.max(lo, start - 10 * MINUTE); t < Math.min(close, hi); t += 1000) {
    const b = Math.floor((start - t) / MINUTE);
    raceSec.set(b, (raceSec.get(b) ?? 0) + 1);
  }
}
for (const f of fetched)
  if (f.open && f.at >= lo && f.at <= hi && f.toStart <= 10 * MINUTE) {
    const b = Math.floor(f.toStart / MINUTE);
    fetchN.set(b, (fetchN.get(b) ?? 0) + 1);
  }
for (const m of moves)
  moveN.set(Math.floor(m.toStart / MINUTE), (moveN.get(Math.floor(m.toStart / MINUTE)) ?? 0) + 1);
console.log(
  '\nby minutes to advertised start: bucket race-min fetches fetches/race-min moves moves/race-min',
);
for (const b of [...raceSec.keys()].sort((a, c) => a - c)) {
  const rm = (raceSec.get(b) ?? 0) / 60;
  const f = fetchN.get(b) ?? 0;
  const mv = moveN.get(b) ?? 0;
  console.log(`${b}\t${rm.toFixed(1)}\t${f}\t${(f / rm).toFixed(2)}\t${mv}\t${(mv / rm).toFixed(2)}`);
}
// Requests per 30 s by phase over the measured window: is the near-jump slice's rate steady?
const series = new Map<number, Record<string, number>>();
for (const f of fetched) {
  if (f.at < lo || f.at > hi) continue;
  const k = Math.floor((f.at - lo) / 30_000);
  const row = series.get(k) ?? {};
  const p = !f.open
    ? 'post'
    : f.toStart <= 10 * MINUTE
      ? 'near'
      : f.toStart <= 60 * MINUTE
        ? 'late'
        : f.toStart <= 180 * MINUTE
          ? 'band'
          : 'far';
  row[p] = (row[p] ?? 0) + 1;
  series.set(k, row);
}
for (const at of listed) {
  if (at < lo || at > hi) continue;
  const row = series.get(Math.floor((at - lo) / 30_000)) ?? {};
  row.listing = (row.listing ?? 0) + 1;
  series.set(Math.floor((at - lo) / 30_000), row);
}
console.log(`\nlistings (measured window): ${JSON.stringify(listings)}`);
// Races near their jump (Open, within 10 min of the advertised start or past it) at each 30 s bucket's middle.
const nearAt = (t: number) =>
  world.races.filter((r) => {
    const x = world.summaryAt(r.id, t);
    return x.status === 'Open' && x.startTime - t <= 10 * MINUTE;
  }).length;
console.log('\nper 30 s: minute-into-run near-races | requests: near late band far post listing');
for (const [k, row] of [...series].sort((a, b) => a[0] - b[0]))
  console.log(
    `${(20 + k / 2).toFixed(1)}\t${nearAt(lo + k * 30_000 + 15_000)}\t| ${row.near ?? 0}\t${row.late ?? 0}\t${row.band ?? 0}\t${row.far ?? 0}\t${row.post ?? 0}\t${row.listing ?? 0}`,
  );
const slow = Number(arg('slow', '0'));
if (slow > 0) {
  const sends = [
    ...fetched.map((f) => ({ at: f.at, why: f.why })),
    ...listed.map((at) => ({ at, why: 'listing' as Why })),
  ];
  sends.sort((a, b) => a.at - b.at);
  const country = new Map(world.races.map((r) => [r.id, r.meeting.country]));
  const slowMoves = moves.filter((m) => m.lat > slow * 1000).sort((a, b) => b.lat - a.lat);
  const all: Record<string, number> = {};
  console.log(
    `\nmoves seen after more than ${slow} s (${slowMoves.length}): lat +min race country toStart toJump since gap near | requests in the gap`,
  );
  for (const m of slowMoves) {
    const prev = m.at - m.sinceFetch;
    const between: Record<string, number> = {};
    for (const x of sends) if (x.at > prev && x.at < prev + m.gap) between[x.why] = (between[x.why] ?? 0) + 1;
    for (const [k, v] of Object.entries(between)) all[k] = (all[k] ?? 0) + v;
    console.log(
      `${s(m.lat)}\t+${((m.at - FROM) / MINUTE).toFixed(2)}\t${m.raceId.slice(0, 8)}\t${country.get(m.raceId)}\t${s(m.toStart)}\t${s(m.toJump)}\t${s(m.sinceFetch)}\t${s(m.gap)}\t${nearAt(m.at)}\t| ${Object.entries(
        between,
      )
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  }
  console.log(`requests in those gaps: ${JSON.stringify(all)}`);
}
const dump = arg('dump', '');
if (dump) {
  const { writeFileSync } = await import('node:fs');
  const starts = Object.fromEntries(
    [...closes.keys()].map((id) => [id, world.summaryAt(id, closes.get(id)!).startTime]),
  );
  writeFileSync(
    dump,
    JSON.stringify({
      from: FROM,
      fetched,
      closes: Object.fromEntries(closes),
      starts,
      moves: journal
        .filter((c) => bucketOf(c, closes) === 'odds (last 10 min)')
        .map((c) => ({ raceId: c.raceId, at: c.at })),
      countries: Object.fromEntries(world.races.map((r) => [r.id, r.meeting.country])),
    }),
  );
}
