/**
 * Chat messages for the market events (docs/events.md#market-events), read at a glance: runner number and
 * name, dollar amounts, arrows for firming (↘, the price shortens) and drifting (↗). Defensive like
 * event-facts.ts: odd data gives a shorter message, never a throw.
 */
import type { RaceEvent } from '../../../events/envelope.js';
import type { Tone } from './event-facts.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** `$5,000`, `$12,345.60`: dollars as the API gives them. */
export const dollars = (n: number | undefined) =>
  n === undefined
    ? '$?'
    : `$${n.toLocaleString('en-US', { minimumFractionDigits: Number.isInteger(n) ? 0 : 2, maximumFractionDigits: 2 })}`;
/** A fixed price: `$4.20`. */
const price = (n: unknown) => (num(n) === undefined ? '$?' : `$${(num(n) as number).toFixed(2)}`);
const pct = (n: unknown) => (num(n) === undefined ? '?' : `${(num(n) as number) > 0 ? '+' : ''}${num(n)}%`);
const hhmm = (iso: unknown) => `${text(iso)?.match(/T(\d\d:\d\d)/)?.[1] ?? '?'} UTC`;
/** `#4 Ruji`, from a RunnerRef or a bet selection. */
const runnerOf = (v: unknown) => {
  const n = num(rec(v).runnerNumber);
  const label = [n !== undefined && `#${n}`, text(rec(v).name)].filter(Boolean).join(' ');
  return label || undefined;
};

/** A market record's runner, else the entrant it names outside this race's field (never mapped onto a runner). */
const runnerOrEntrant = (runner: unknown, entrant: unknown): string => {
  const name = text(rec(entrant).name);
  return runnerOf(runner) ?? (name ? `${name} (outside the field)` : 'an entrant outside the field');
};

export interface ChatMessage {
  title: string;
  lines: string[];
  tone: Tone;
}

/** The chat message of a market event (`race`: its race label); undefined for any other type. */
export function marketMessage(event: RaceEvent, race: string): ChatMessage | undefined {
  const d = rec(event.data);
  const runner = runnerOf(d.runner) ?? 'a runner';
  switch (event.type) {
    case 'odds.plunge':
    case 'odds.drift': {
      const firm = event.type === 'odds.plunge';
      const flucs = (Array.isArray(d.flucs) ? d.flucs.slice(-8) : []).map((f) => price(rec(f).price));
      const minutes = num(rec(d.window).minutes);
      return {
        title: `${firm ? '↘ Firming' : '↗ Drifting'}: ${runner} ${price(d.from)} → ${price(d.to)} (${pct(d.changePct)}${minutes ? ` in ${minutes} min` : ''})`,
        lines: [race, ...(flucs.length ? [`Flucs: ${flucs.join(' → ')}`] : [])],
        tone: firm ? 'warning' : 'info',
      };
    }
    case 'market.big_bet': {
      const sel = (Array.isArray(d.selections) ? d.selections.slice(0, 10) : []).map(
        (s) => runnerOf(s) ?? '?',
      );
      const odds = num(d.odds);
      return {
        title: `${dollars(num(d.stake))} ${text(d.product) ?? 'bet'} on ${sel.length ? sel.join(', ') : 'unknown runners'}`,
        lines: [
          race,
          `${odds ? `At ${price(odds)}, ` : ''}placed ${hhmm(d.placedAt)}${d.biggest === true ? ' · the race’s biggest bet' : ''}`,
        ],
        tone: 'warning',
      };
    }
    case 'market.money_flow': {
      const up = d.direction === 'for';
      const change = num(d.changePoints);
      return {
        title: `${up ? '↗ Money for' : '↘ Money against'} ${runnerOrEntrant(d.runner, d.entrant)}: ${num(d.from) ?? '?'}% → ${num(d.to) ?? '?'}% of the money`,
        lines: [
          race,
          `${change !== undefined && change > 0 ? '+' : ''}${change ?? '?'} points in ${num(rec(d.window).minutes) ?? '?'} min`,
        ],
        tone: 'info',
      };
    }
    case 'race.mover_changed':
      return {
        title: `Market mover: ${runnerOrEntrant(d.to, d.entrant)}`,
        lines: [
          race,
          `${price(d.openPrice)} → ${price(d.price)}${d.from ? ` (was ${runnerOf(d.from)})` : ''}`,
        ],
        tone: 'info',
      };
    case 'runner.deduction':
      return {
        title: `Deductions after scratching ${runner}: win ${num(d.win) ?? '?'}, place ${num(d.place) ?? '?'}`,
        lines: [race],
        tone: 'warning',
      };
    case 'pool.total':
      return {
        title: `${text(d.pool) ?? 'Tote'} pool passes ${dollars(num(d.milestone))}`,
        lines: [race, `Total ${dollars(num(d.total))}`],
        tone: 'success',
      };
    default:
      return undefined;
  }
}
