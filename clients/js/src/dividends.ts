/**
 * One dividend summary for every place racewire writes dividends as text (the board, the ticker, Slack and
 * Discord): the order a punter reads them in (Win, Place with runner numbers, Quinella, Trifecta, First Four,
 * then the exotics), one line per pool, a Final row in place of its Interim twin. Upstream lists its rows in
 * no fixed order and keeps each Interim row beside its Final one, so its order is never shown as it is.
 */

/** What a summary needs of a dividend row (the `race.dividends` event's rows have it). */
export interface DividendRowLike {
  productName: string;
  status?: string | null;
  dividend: number;
  positions?: readonly { runnerNumber: number; position?: number }[] | null;
  description?: string | null;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const finite = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/**
 * The dividend rows of an event's data, read defensively (the data came over the network): a row without a
 * product or an amount is left out, never guessed; at most 100 rows are read.
 */
export function dividendRowsOf(value: unknown): DividendRowLike[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, 100).flatMap((v): DividendRowLike[] => {
    if (!isRec(v)) return [];
    const productName = text(v.productName) ?? text(v.product);
    const dividend = finite(v.dividend) ?? finite(v.amount);
    if (productName === undefined || dividend === undefined) return [];
    const positions = (Array.isArray(v.positions) ? v.positions : []).flatMap((p) => {
      const runnerNumber = isRec(p) ? finite(p.runnerNumber) : finite(p);
      return runnerNumber === undefined ? [] : [{ runnerNumber }];
    });
    return [{ productName, status: text(v.status), dividend, positions, description: text(v.description) }];
  });
}

/** One pool's line: its label, and one `runners $amount` part per paying combination. */
export interface DividendLine {
  label: string;
  parts: { runners: string; amount: number }[];
}

/** Upstream product names without their `Pool ` / `Fixed ` prefix, as a punter says them. */
const LABELS: Record<string, string> = {
  Win: 'Win',
  Place: 'Place',
  Quinella: 'Quinella',
  Exacta: 'Exacta',
  Trifecta: 'Trifecta',
  First4: 'First Four',
  FirstFour: 'First Four',
  Duet: 'Duet',
  Double: 'Double',
  RunningDouble: 'Running Double',
  Treble: 'Treble',
  Quadrella: 'Quadrella',
  Quaddie: 'Quadrella',
};
/** The order of the common pools; every other pool (an exotic, or one upstream adds) follows by name. */
const FIRST = ['Win', 'Place', 'Quinella', 'Trifecta', 'First Four'];

const bare = (productName: string): string => productName.replace(/^(Pool|Fixed)\s+/i, '').trim();
export const dividendLabel = (productName: string): string => {
  const name = bare(productName);
  // Own keys only: upstream's text is data, and `__proto__` or `constructor` must stay a name.
  return Object.hasOwn(LABELS, name) ? (LABELS[name] as string) : name;
};

const rank = (label: string): number => {
  const i = FIRST.indexOf(label);
  return i === -1 ? FIRST.length : i;
};

const runnersOf = (row: DividendRowLike): string => {
  const numbers = (row.positions ?? []).map((p) => p.runnerNumber);
  if (numbers.length) return numbers.join('-');
  // `2:4:7` is runners in order; anything else (`concession:2/7`) is upstream's own words, shown as they are.
  const description = row.description ?? '';
  return /^\d+(:\d+)*$/.test(description) ? description.replace(/:/g, '-') : description;
};

/**
 * The rows as lines in reading order. A pool's Final row replaces its Interim twin (same pool and runners);
 * Place parts follow `finishOrder` (runner numbers, first past the post first) when it is given, else the
 * runner numbers; unknown pools keep upstream's name and come after the known ones, never guessed.
 */
export function summariseDividends(
  rows: readonly DividendRowLike[],
  finishOrder: readonly number[] = [],
): DividendLine[] {
  const chosen = new Map<string, DividendRowLike>();
  for (const row of rows) {
    const key = `${dividendLabel(row.productName)}\u0000${runnersOf(row)}`;
    const held = chosen.get(key);
    if (!held || (held.status !== 'Final' && row.status === 'Final')) chosen.set(key, row);
  }
  const lines = new Map<string, DividendLine>();
  for (const row of chosen.values()) {
    const label = dividendLabel(row.productName);
    const line = lines.get(label) ?? { label, parts: [] };
    line.parts.push({ runners: runnersOf(row), amount: row.dividend });
    lines.set(label, line);
  }
  const place = (runners: string): number => {
    const i = finishOrder.indexOf(Number(runners));
    return i === -1 ? finishOrder.length + Number(runners) : i;
  };
  for (const line of lines.values()) {
    if (line.label === 'Place') line.parts.sort((a, b) => place(a.runners) - place(b.runners));
  }
  return [...lines.values()].sort((a, b) => rank(a.label) - rank(b.label) || a.label.localeCompare(b.label));
}

export const formatAmount = (amount: number): string =>
  `$${amount.toLocaleString('en-AU', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** A line as text: `Place #2 $1.70, #4 $1.90` for one runner a part, `Trifecta 2-4-7 $396.60` for several. */
export function formatDividendLine(line: DividendLine): string {
  const parts = line.parts.map(({ runners, amount }) => {
    const who = runners === '' ? '' : /^\d+$/.test(runners) ? `#${runners} ` : `${runners} `;
    return `${who}${formatAmount(amount)}`;
  });
  return `${line.label} ${parts.join(', ')}`;
}

/** The whole summary on one line, the first `max` pools (Win first), with how many more there are. */
export function formatDividendSummary(
  rows: readonly DividendRowLike[],
  { max = 5, finishOrder = [] }: { max?: number; finishOrder?: readonly number[] } = {},
): string {
  const lines = summariseDividends(rows, finishOrder);
  const shown = lines.slice(0, max).map(formatDividendLine).join(' · ');
  return lines.length > max ? `${shown} · +${lines.length - max} more` : shown;
}
