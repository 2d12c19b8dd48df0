/**
 * The small pieces every event line is written with (runner labels, prices, dollars, changes, durations),
 * read defensively: event data came over the network, so a missing or odd member gives `?`, never a throw.
 * Used by event-text.ts and market-text.ts; callers get the whole text from `describeEvent`.
 */

/** How an event should stand out: a colour in the terminal, an accent on the board, a colour in Discord. */
export type Tone = 'up' | 'down' | 'alert' | 'result' | 'info';

/** What an event type's wording gives; `describeEvent` adds where and race. */
export interface EventWords {
  title: string;
  facts?: string[];
  details?: string[];
  tone: Tone;
}

export type Rec = Record<string, unknown>;
export const rec = (v: unknown): Rec =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : undefined;
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
/** At most `max` members of an array (a list from the network can be any length). */
export const list = (v: unknown, max: number): unknown[] => (Array.isArray(v) ? v.slice(0, max) : []);

/** `#4 Tickford` from a RunnerRef, a placing or a bet selection; undefined when it names nothing. */
export function runnerLabel(v: unknown): string | undefined {
  const r = rec(v);
  const n = num(r.runnerNumber);
  const label = [n !== undefined && `#${n}`, str(r.name)].filter(Boolean).join(' ');
  return label || undefined;
}

/** A market record's runner, else the entrant it names outside this race's field (never mapped onto a runner). */
export function runnerOrEntrant(runner: unknown, entrant: unknown): string {
  const name = str(rec(entrant).name);
  return runnerLabel(runner) ?? (name ? `${name} (outside the field)` : 'an entrant outside the field');
}

/** A price as punters quote it: `$4.40`. */
export const formatPrice = (v: unknown): string => {
  const n = num(v);
  return n === undefined ? '$?' : `$${n.toFixed(2)}`;
};

/** `$5,000`, `$12,345.60`: stakes and pools. */
export const dollars = (v: unknown): string => {
  const n = num(v);
  if (n === undefined) return '$?';
  const cents = Number.isInteger(n) ? 0 : 2;
  return `$${n.toLocaleString('en-US', { minimumFractionDigits: cents, maximumFractionDigits: 2 })}`;
};

/** `+63.0%`, `-12.0%`. */
export const signedPct = (v: unknown): string => {
  const n = num(v);
  return n === undefined ? '?%' : `${n > 0 ? '+' : ''}${n.toFixed(1)}%`;
};

/** `00:41 UTC` from an ISO time. */
export const hhmmUtc = (iso: unknown): string => `${str(iso)?.match(/T(\d\d:\d\d)/)?.[1] ?? '?'} UTC`;

/** `40 s`, `5 min 35 s`, `2 min`, `1 h 5 min` for a number of seconds (its sign ignored). */
export function formatDuration(seconds: number): string {
  const total = Math.round(Math.abs(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/** How a race jumped against its advertised start (`delaySeconds` > 0: late). */
export function jumpWording(delaySeconds: number | undefined): string {
  if (delaySeconds === undefined) return 'Jumped';
  if (Math.round(delaySeconds) === 0) return 'Jumped on time';
  return `Jumped ${formatDuration(delaySeconds)} ${delaySeconds > 0 ? 'late' : 'early'}`;
}
