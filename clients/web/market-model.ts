/**
 * The market panel's model from the race document (docs/document.md) and the race's market events: each
 * runner's share of the money (its money tracker `hold_percentage` rows summed), the latest big bets, and
 * the latest plunges and drifts. Pure and defensive: the document comes from the network.
 */
import type { RaceEvent } from '@racewire/client';

export interface ShareRow {
  entrantId: string;
  number: number | null;
  name: string;
  /** Percent of the race's money. */
  share: number;
}

export interface BetRow {
  key: string;
  stake: number;
  product: string;
  /** `#4 Ruji` or `1-7-2` for exotics. */
  runners: string;
  /** HH:MM UTC. */
  at: string;
  biggest: boolean;
}

export interface MoveRow {
  id: string;
  kind: 'plunge' | 'drift';
  runner: string;
  from: number;
  to: number;
  changePct: number;
}

export interface MarketModel {
  /** Null when the document has no money tracker (the data is not asked for yet). */
  shares: ShareRow[] | null;
  bets: BetRow[];
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const BETS_SHOWN = 5;

function sharesOf(doc: Rec): ShareRow[] | null {
  const mt = rec(doc.money_tracker);
  const groups = rec(mt.entrants);
  if (Object.keys(groups).length === 0) return null;
  const total = new Map<string, number>();
  for (const rows of Object.values(groups))
    for (const row of Array.isArray(rows) ? rows : [rows]) {
      const id = str(rec(row).entrant_id);
      const hold = num(rec(row).hold_percentage);
      if (id && hold !== null) total.set(id, (total.get(id) ?? 0) + hold);
    }
  return Object.entries(rec(doc.runners))
    .map(([key, r]) => ({ key, r: rec(r) }))
    .filter(({ r }) => r.is_scratched !== true)
    .map(({ key, r }) => {
      const entrantId = str(r.entrant_id) ?? key;
      return {
        entrantId,
        number: num(r.runner_number),
        name: str(r.name) ?? '?',
        share: total.get(entrantId) ?? 0,
      };
    })
    .sort((a, b) => b.share - a.share || (a.number ?? 0) - (b.number ?? 0));
}

function betOf(v: unknown, biggestKey: string | null): BetRow | null {
  const b = rec(v);
  const stake = num(b.stake);
  const placed = str(b.place_time);
  if (stake === null || !placed) return null;
  const picks: string[] = [];
  for (const leg of Array.isArray(b.legs) ? b.legs : [])
    for (const sel of Array.isArray(rec(leg).selections) ? (rec(leg).selections as unknown[]) : [])
      for (const e of Array.isArray(rec(sel).entrants) ? (rec(sel).entrants as unknown[]) : []) {
        const n = num(rec(e).entrant_number);
        if (n !== null)
          picks.push(picks.length === 0 ? `#${n} ${str(rec(e).entrant_name) ?? ''}`.trim() : `${n}`);
      }
  const key = `${placed}|${stake}|${str(b.title)}`;
  return {
    key,
    stake,
    product: str(b.title) ?? 'Bet',
    runners: picks.length > 1 ? picks.map((p) => p.replace(/^#(\d+).*/, '$1')).join('-') : (picks[0] ?? '?'),
    at: placed.match(/T(\d\d:\d\d)/)?.[1] ?? '',
    biggest: key === biggestKey,
  };
}

export function marketModel(document: unknown): MarketModel {
  const doc = rec(document);
  const biggest = betOf(doc.biggest_bet, null);
  const listed = (Array.isArray(doc.big_bets) ? doc.big_bets : [])
    .map((b) => betOf(b, biggest?.key ?? null))
    .filter((b): b is BetRow => b !== null);
  if (biggest && !listed.some((b) => b.key === biggest.key)) listed.push({ ...biggest, biggest: true });
  return { shares: sharesOf(doc), bets: listed.slice(0, BETS_SHOWN + 1) };
}

/** A plunge or drift event of the race as a row of the panel; undefined for any other event. */
export function moveOf(event: RaceEvent): MoveRow | undefined {
  if (event.type !== 'odds.plunge' && event.type !== 'odds.drift') return undefined;
  const d = rec(event.data);
  const r = rec(d.runner);
  const from = num(d.from);
  const to = num(d.to);
  const pct = num(d.changePct);
  if (from === null || to === null || pct === null) return undefined;
  const n = num(r.runnerNumber);
  return {
    id: event.id,
    kind: event.type === 'odds.plunge' ? 'plunge' : 'drift',
    runner: `${n === null ? '' : `#${n} `}${str(r.name) ?? '?'}`,
    from,
    to,
    changePct: pct,
  };
}
