/**
 * Results and dividends. Results: first placings (interim or final), confirmation when the race goes Final
 * with the same placings, and amendments (a protest upheld) with what moved. A list may hold only the
 * placed runners (the real Final lists the top 4 of 8) and two rows may share a position (a dead heat). Dividends: new or changed rows,
 * Interim and Final rows in separate events (upstream keeps both, with different ids).
 */
import type {
  DetectedRaceEvent,
  DividendRow,
  Placing,
  PlacingChange,
  RaceContext,
} from '@racewire/client/protocol';
import type { RaceDocument } from '../track/normalise.js';
import { finite, isRecord, type Rec, str } from './detect-context.js';

/**
 * A row's margin: the real API lists every placed row after the winner with `margin_length` 0 and no
 * `positional_margin` when margins were not measured, which is no margin at all (a dead heat shares the
 * position instead).
 */
function marginOf(row: Rec, position: number): number | null {
  const margin = finite(row.margin_length);
  const said = str(row.positional_margin);
  return margin === 0 && position > 1 && !said ? null : margin;
}

function placingsOf(doc: RaceDocument): Map<string, Placing> {
  const out = new Map<string, Placing>();
  if (!isRecord(doc.results)) return out;
  for (const row of Object.values(doc.results) as unknown[]) {
    if (!isRecord(row)) continue;
    const position = finite(row.position);
    const entrantId = str(row.entrant_id);
    if (position === null || entrantId === null) continue;
    out.set(entrantId, {
      position,
      entrantId,
      runnerNumber: finite(row.runner_number) ?? 0,
      name: str(row.name) ?? '',
      marginLength: marginOf(row, position),
    });
  }
  const counts = new Map<number, number>();
  for (const p of out.values()) counts.set(p.position, (counts.get(p.position) ?? 0) + 1);
  for (const p of out.values()) if ((counts.get(p.position) ?? 0) > 1) p.deadHeat = true;
  return out;
}

const inOrder = (a: Placing, b: Placing) => a.position - b.position || a.runnerNumber - b.runnerNumber;

export function detectResultChanges(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
): DetectedRaceEvent[] {
  const before = placingsOf(prev);
  const after = placingsOf(next);
  if (after.size === 0) return [];
  const results = [...after.values()].sort(inOrder);
  const isFinal = next.race.status === 'Final';
  if (before.size === 0) {
    return [
      { type: 'race.results', data: { race, kind: isFinal ? 'final' : 'interim', results, changes: [] } },
    ];
  }
  const changes: PlacingChange[] = [];
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(id);
    const b = after.get(id);
    if (a?.position === b?.position) continue;
    const who = (b ?? a)!;
    changes.push({
      entrantId: id,
      runnerNumber: who.runnerNumber,
      name: who.name,
      from: a?.position ?? null,
      to: b?.position ?? null,
    });
  }
  // Rows gone from the end of the list while every other placing stands are a list cut to the placed
  // runners (the real Final lists the top 4 of 8), not an amendment.
  const lastKept = Math.max(...results.map((p) => p.position));
  const cut = changes.every((c) => c.to === null && (c.from ?? 0) > lastKept);
  if (changes.length > 0 && !cut) {
    changes.sort((x, y) => (x.to ?? 99) - (y.to ?? 99) || x.runnerNumber - y.runnerNumber);
    return [{ type: 'race.results', data: { race, kind: 'amended', results, changes } }];
  }
  if (isFinal && prev.race.status !== 'Final') {
    return [{ type: 'race.results', data: { race, kind: 'final', results, changes: [] } }];
  }
  return [];
}

function dividendRow(row: Rec, change: DividendRow['change'], previous: Rec | undefined): DividendRow {
  const positions = Array.isArray(row.positions)
    ? row.positions.flatMap((p) => {
        const runnerNumber = isRecord(p) ? finite(p.runner_number) : null;
        const position = isRecord(p) ? finite(p.position) : null;
        return runnerNumber !== null && position !== null ? [{ runnerNumber, position }] : [];
      })
    : [];
  return {
    id: String(row.id),
    productName: str(row.product_name) ?? '',
    tote: str(row.tote),
    status: str(row.status) ?? '',
    dividend: finite(row.dividend) ?? 0,
    poolSize: finite(row.pool_size),
    positions,
    description: str(row.description),
    change,
    previousDividend: previous ? finite(previous.dividend) : null,
  };
}

/** What a reader of a dividend cares about; pool size moving on its own is not a new dividend. */
const dividendChanged = (a: Rec, b: Rec) =>
  a.dividend !== b.dividend ||
  a.status !== b.status ||
  a.product_name !== b.product_name ||
  JSON.stringify(a.positions) !== JSON.stringify(b.positions);

/** A dividend's pool and runners: what its Interim and Final rows share. */
const poolKey = (row: Rec) => `${str(row.product_name) ?? ''}|${str(row.description) ?? ''}`;

const STATUS_ORDER = ['Interim', 'Final'];
const statusRank = (s: string) => {
  const i = STATUS_ORDER.indexOf(s);
  return i === -1 ? STATUS_ORDER.length : i;
};

export function detectDividendChanges(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
): DetectedRaceEvent[] {
  const before = isRecord(prev.dividends) ? (prev.dividends as Record<string, unknown>) : {};
  const after = isRecord(next.dividends) ? (next.dividends as Record<string, unknown>) : {};
  const byStatus = new Map<string, DividendRow[]>();
  // Upstream keeps a pool's Interim row beside its Final one: an Interim row first seen beside its Final
  // row (racewire missed the Interim payload) is already superseded, and is not news.
  const finalRows = new Set(
    Object.values(after).flatMap((row) => (isRecord(row) && row.status === 'Final' ? [poolKey(row)] : [])),
  );
  for (const [key, row] of Object.entries(after)) {
    if (!isRecord(row) || finite(row.dividend) === null) continue;
    const old = before[key];
    const previous = isRecord(old) ? old : undefined;
    if (previous && !dividendChanged(previous, row)) continue;
    if (!previous && row.status === 'Interim' && finalRows.has(poolKey(row))) continue;
    const item = dividendRow(row, previous ? 'changed' : 'new', previous);
    const rows = byStatus.get(item.status) ?? [];
    rows.push(item);
    byStatus.set(item.status, rows);
  }
  const statuses = [...byStatus.keys()].sort((a, b) => statusRank(a) - statusRank(b) || (a < b ? -1 : 1));
  return statuses.map((status) => ({
    type: 'race.dividends' as const,
    data: {
      race,
      status,
      dividends: byStatus
        .get(status)!
        .sort(
          (a, b) =>
            a.productName.localeCompare(b.productName) ||
            (a.description ?? '').localeCompare(b.description ?? '') ||
            a.id.localeCompare(b.id),
        ),
    },
  }));
}
