/**
 * Results and dividends. Results: first placings (interim or final), confirmation when the race goes Final
 * with the same placings, and amendments (a protest upheld) with what moved. Dividends: new or changed rows,
 * Interim and Final rows in separate events (upstream keeps both, with different ids).
 */
import type {
  DetectedRaceEvent,
  DividendRow,
  Placing,
  PlacingChange,
  RaceContext,
} from '@racewire/client/protocol';
import { finite, isRecord, type Rec, str } from './detect-context.js';
import type { RaceDocument } from './normalise.js';

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
      marginLength: finite(row.margin_length),
    });
  }
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
  if (changes.length > 0) {
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
  for (const [key, row] of Object.entries(after)) {
    if (!isRecord(row) || finite(row.dividend) === null) continue;
    const old = before[key];
    const previous = isRecord(old) ? old : undefined;
    if (previous && !dividendChanged(previous, row)) continue;
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
