/**
 * The race view's model: the normalised race document (docs/document.md) read defensively into rows the
 * page renders. Pure; the document comes from the network, so every field is checked, and a document that
 * is not a race gives an empty model rather than an exception.
 */
import { type DividendLine, type DividendRowLike, summariseDividends } from '@racewire/client/dividends';

export const MARKETS = ['fixed_win', 'fixed_place', 'pool_win', 'pool_place'] as const;
export type Market = (typeof MARKETS)[number];
export type Odds = Record<Market, number | null>;

export interface RunnerRow {
  entrantId: string;
  number: number | null;
  name: string;
  barrier: number | null;
  /** Jockey (thoroughbred), driver (harness) or trainer (greyhounds: no rider). */
  rider: string | null;
  trainer: string | null;
  scratched: boolean;
  lateScratched: boolean;
  favourite: boolean;
  odds: Odds;
  silk: string | null;
}

export interface ResultRow {
  entrantId: string;
  position: number;
  number: number | null;
  name: string;
  margin: string | null;
}

/** One pool's dividends as the board shows them: Final when upstream has settled the pool, else Interim. */
export interface PoolDividends extends DividendLine {
  status: string;
}

export interface RaceModel {
  raceId: string;
  name: string;
  meeting: string;
  number: number | null;
  status: string;
  /** Racing code: T, H or G (or whatever upstream says). */
  code: string | null;
  /** ms since the epoch. */
  advertisedStart: number | null;
  distance: number | null;
  trackCondition: string | null;
  runners: RunnerRow[];
  results: ResultRow[];
  /** In a punter's reading order: Win, Place, Quinella, Trifecta, First Four, then the exotics. */
  dividends: PoolDividends[];
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const byNumber = (a: number | null, b: number | null) =>
  (a ?? Number.MAX_SAFE_INTEGER) - (b ?? Number.MAX_SAFE_INTEGER);

/** Who is shown in the rider column, by racing code. */
export const riderLabel = (code: string | null): string =>
  code === 'H' ? 'Driver' : code === 'G' ? 'Trainer' : 'Jockey';

function runnerRow(id: string, r: Rec, code: string | null): RunnerRow {
  const odds = rec(r.odds);
  const trainer = str(r.trainer_name);
  return {
    entrantId: str(r.entrant_id) ?? id,
    number: num(r.runner_number),
    name: str(r.name) ?? '(unnamed)',
    barrier: num(r.barrier),
    rider: code === 'G' ? trainer : (str(r.jockey) ?? str(r.driver)),
    trainer,
    scratched: r.is_scratched === true,
    lateScratched: r.is_late_scratched === true,
    favourite: r.favourite === true,
    odds: {
      fixed_win: num(odds.fixed_win),
      fixed_place: num(odds.fixed_place),
      pool_win: num(odds.pool_win),
      pool_place: num(odds.pool_place),
    },
    silk: str(r.silk_url_64x64),
  };
}

function marginOf(r: Rec): string | null {
  const m = num(r.margin_length) ?? num(r.margin);
  if (num(r.position) === 1) return null;
  if (m !== null) return `${m}L`;
  return str(r.positional_margin);
}

export function raceModel(raceId: string, document: unknown): RaceModel {
  const doc = rec(document);
  const race = rec(doc.race);
  const code = str(race.type) ?? str(race.category);
  const start = num(race.advertised_start);
  const runnersById = rec(doc.runners);
  const numberOf = new Map<string, number | null>();
  const runners = Object.entries(runnersById)
    .map(([id, r]) => runnerRow(id, rec(r), code))
    .sort((a, b) => byNumber(a.number, b.number));
  for (const r of runners) numberOf.set(r.entrantId, r.number);

  const results = Object.entries(rec(doc.results))
    .map(([id, v]) => {
      const r = rec(v);
      const entrantId = str(r.entrant_id) ?? id;
      return {
        entrantId,
        position: num(r.position) ?? 0,
        number: num(r.runner_number) ?? numberOf.get(entrantId) ?? null,
        name: str(r.name) ?? '(unnamed)',
        margin: marginOf(r),
      };
    })
    .filter((r) => r.position > 0)
    .sort((a, b) => a.position - b.position);

  const dividendRows = Object.values(rec(doc.dividends)).flatMap((v): DividendRowLike[] => {
    const d = rec(v);
    const productName = str(d.product_name);
    const dividend = num(d.dividend);
    if (productName === null || dividend === null) return [];
    const positions = (Array.isArray(d.positions) ? d.positions : [])
      .map((p) => num(rec(p).runner_number))
      .filter((n) => n !== null)
      .map((runnerNumber) => ({ runnerNumber }));
    return [{ productName, status: str(d.status) ?? '?', dividend, positions }];
  });
  const finishOrder = results.map((r) => r.number).filter((n) => n !== null);

  return {
    raceId,
    name: str(race.description) ?? str(race.name) ?? '',
    meeting: str(race.meeting_name) ?? '',
    number: num(race.race_number),
    status: str(race.status) ?? 'Unknown',
    code,
    advertisedStart: start === null ? null : start * 1000,
    distance: num(race.distance),
    trackCondition: str(race.track_condition),
    runners,
    results,
    dividends: poolDividends(dividendRows, finishOrder),
  };
}

/**
 * The shared summary's lines, each tagged with its status: a pool with a Final row shows its Final rows
 * only (they supersede the Interim ones), a pool without one shows its Interim rows.
 */
function poolDividends(rows: readonly DividendRowLike[], finishOrder: readonly number[]): PoolDividends[] {
  const final = summariseDividends(
    rows.filter((r) => r.status === 'Final'),
    finishOrder,
  );
  const settled = new Set(final.map((l) => l.label));
  const interim = summariseDividends(
    rows.filter((r) => r.status !== 'Final'),
    finishOrder,
  ).filter((l) => !settled.has(l.label));
  const order = summariseDividends(rows).map((l) => l.label);
  return [
    ...final.map((l) => ({ ...l, status: 'Final' })),
    ...interim.map((l) => ({ ...l, status: 'Interim' })),
  ].sort((a, b) => order.indexOf(a.label) - order.indexOf(b.label));
}

export type Move = 'up' | 'down';

/**
 * Which prices moved between two models of the same race: `up` when a price lengthened (drifted), `down`
 * when it shortened (firmed). Keyed `<entrantId>/<market>`. A price appearing or vanishing is no move.
 */
export function oddsMoves(prev: RaceModel | undefined, next: RaceModel): Map<string, Move> {
  const moves = new Map<string, Move>();
  if (!prev || prev.raceId !== next.raceId) return moves;
  const before = new Map(prev.runners.map((r) => [r.entrantId, r.odds]));
  for (const runner of next.runners) {
    const old = before.get(runner.entrantId);
    if (!old) continue;
    for (const market of MARKETS) {
      const a = old[market];
      const b = runner.odds[market];
      if (a !== null && b !== null && a !== b)
        moves.set(`${runner.entrantId}/${market}`, b > a ? 'up' : 'down');
    }
  }
  return moves;
}
