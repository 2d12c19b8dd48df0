/**
 * Compact mode (`--compact`): odds moves (fixed-odds events and the tote's batches) folded into one line per race per second at most. The firehose
 * carries ~66 odds lines a second on a busy afternoon; a person reads the news lines (scratchings, jumps,
 * results) and a summary of the prices. Every other event passes through at once. Pure: the ticker calls
 * `flush` from a one-second timer, tests call it with their own instants.
 */
import type { RaceEvent } from '@racewire/client';
import { formatPrice } from '@racewire/client/event-text';

interface Move {
  label: string;
  from: unknown;
  to: unknown;
}

/** A race's odds moves since the last flush, as one line. */
export interface FoldedOdds {
  event: RaceEvent;
  summary: string;
}

interface Held {
  /** The first odds move of the race since the last flush: its line takes that event's place and time. */
  first: RaceEvent;
  /** One entry per runner and market, the first `from` and the latest `to`, in order of first move. */
  moves: Map<string, Move>;
  count: number;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' ? (v as Rec) : {});

/** How many runners a folded line names before `+N more`. */
const SHOWN = 4;

export class OddsFolder {
  private readonly held = new Map<string, Held>();

  /** An event in; what to print now (nothing while an odds move is held). */
  push(event: RaceEvent): RaceEvent[] {
    const d = rec(event.data);
    // A tote batch holds one move per runner and pool, each counted as a fixed-odds move is.
    let changes: unknown[];
    if (event.type === 'odds.changed') changes = [d];
    else if (event.type === 'odds.pools_changed') changes = Array.isArray(d.changes) ? d.changes : [];
    else return [event];
    const race = event.raceId ?? String(rec(d.race).raceId ?? '');
    const held = this.held.get(race) ?? { first: event, moves: new Map(), count: 0 };
    for (const change of changes) {
      const c = rec(change);
      const runner = rec(c.runner);
      const key = `${String(runner.entrantId ?? runner.runnerNumber)}/${String(c.market)}`;
      const label = typeof runner.runnerNumber === 'number' ? `#${runner.runnerNumber}` : '?';
      const move = held.moves.get(key) ?? { label, from: c.from, to: c.to };
      move.to = c.to;
      held.moves.set(key, move);
      held.count++;
    }
    this.held.set(race, held);
    return [];
  }

  /** One summary per race with held moves (its first move's event, for the time and place), then forgets them. */
  flush(): FoldedOdds[] {
    const out = [...this.held.values()].map(({ first, moves, count }) => {
      const list = [...moves.values()];
      const named = list
        .slice(0, SHOWN)
        .map((m) => `${m.label} ${formatPrice(m.from)}→${formatPrice(m.to)}`)
        .join(', ');
      const more = list.length > SHOWN ? `, +${list.length - SHOWN} more` : '';
      return { event: first, summary: `${count} odds move${count === 1 ? '' : 's'}: ${named}${more}` };
    });
    this.held.clear();
    return out;
  }
}
