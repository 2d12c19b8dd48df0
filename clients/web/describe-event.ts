/**
 * One short line per event, shared by the board's feed and the terminal ticker. Pure and defensive: an
 * event is data from the network, so a missing member gives a shorter line, never an exception.
 */
import type { RaceEvent } from '@racewire/client';
import { dividendRowsOf, formatDividendSummary } from '@racewire/client/dividends';
import { describeMarket } from './describe-market.js';
import { jumpWording } from './wording.js';

/** How an event should stand out: colour in the ticker, accent in the feed. */
export type Tone = 'up' | 'down' | 'alert' | 'result' | 'info';

export interface EventLine {
  /** Where: `Awapuni R3`. */
  where: string;
  /** What: `#4 Tickford firming 5.00 → 4.40 (-12.0%)`. */
  what: string;
  tone: Tone;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export const formatPrice = (v: unknown): string => {
  const n = num(v);
  return n === undefined ? '–' : n.toFixed(2);
};

function runnerLabel(runner: unknown): string {
  const r = rec(runner);
  const n = num(r.runnerNumber);
  const name = str(r.name) ?? 'runner';
  return n === undefined ? name : `#${n} ${name}`;
}

function whereOf(event: RaceEvent): string {
  const data = rec(event.data);
  const race = rec(data.race);
  const meeting = rec(data.meeting);
  // Meeting events carry `meeting` and a bare race ref: the meeting is the place, the race is the news.
  if (event.type.startsWith('meeting.')) return str(meeting.name) ?? event.meetingId;
  const venue = str(race.meetingName) ?? event.meetingId;
  const number = num(race.raceNumber);
  return number === undefined ? venue : `${venue} R${number}`;
}

const placings = (rows: unknown): string =>
  (Array.isArray(rows) ? rows : [])
    .slice(0, 4)
    .map((p) => {
      const row = rec(p);
      const margin = num(row.marginLength);
      const m = margin !== undefined && num(row.position) !== 1 ? ` (${margin}L)` : '';
      return `${num(row.position) ?? '?'}. ${runnerLabel(row)}${m}`;
    })
    .join(', ');

function what(event: RaceEvent): { what: string; tone: Tone } {
  const d = rec(event.data);
  switch (event.type) {
    case 'odds.changed': {
      const dir = str(d.direction) ?? 'moved';
      const pct = num(d.changePct);
      const market = (str(d.market) ?? '').replace('_', ' ');
      const change = pct === undefined ? '' : ` (${pct > 0 ? '+' : ''}${pct.toFixed(1)}%)`;
      return {
        what: `${runnerLabel(d.runner)} ${dir} ${market} ${formatPrice(d.from)} → ${formatPrice(d.to)}${change}`,
        tone: dir === 'firming' ? 'up' : dir === 'drifting' ? 'down' : 'info',
      };
    }
    case 'runner.scratched':
      return { what: `${runnerLabel(d.runner)} scratched${d.late === true ? ' (late)' : ''}`, tone: 'alert' };
    case 'runner.reinstated':
      return { what: `${runnerLabel(d.runner)} reinstated`, tone: 'info' };
    case 'runner.added':
      return { what: `${runnerLabel(d.runner)} added`, tone: 'info' };
    case 'runner.removed':
      return { what: `${runnerLabel(d.runner)} removed`, tone: 'alert' };
    case 'runner.jockey_changed':
      return {
        what: `${runnerLabel(d.runner)} rider ${str(d.from) ?? '–'} → ${str(d.to) ?? '–'}`,
        tone: 'info',
      };
    case 'race.status_changed':
      return { what: `status ${str(d.from) ?? '?'} → ${str(d.to) ?? '?'}`, tone: 'info' };
    case 'race.abandoned':
      return { what: 'abandoned', tone: 'alert' };
    case 'race.jumped':
      return { what: jumpWording(num(d.delaySeconds)), tone: 'info' };
    case 'race.start_time_changed': {
      const delta = num(d.deltaSeconds);
      const mins = delta === undefined ? '' : ` (${delta > 0 ? '+' : ''}${Math.round(delta / 60)} min)`;
      return { what: `start time moved${mins}`, tone: 'alert' };
    }
    case 'race.track_condition_changed':
      return { what: `track ${str(d.from) ?? '–'} → ${str(d.to) ?? '–'}`, tone: 'info' };
    case 'race.protest':
      return {
        what: `protest ${str(d.status) ?? ''}${str(d.reason) ? `: ${str(d.reason)}` : ''}`,
        tone: 'alert',
      };
    case 'race.favourite_changed':
      return { what: `new favourite ${runnerLabel(d.to)} at ${formatPrice(d.price)}`, tone: 'up' };
    case 'race.results':
      return { what: `results (${str(d.kind) ?? '?'}): ${placings(d.results)}`, tone: 'result' };
    case 'race.dividends': {
      const list = formatDividendSummary(dividendRowsOf(d.dividends), { max: 3 });
      return { what: `${str(d.status) ?? ''} dividends: ${list}`.trim(), tone: 'result' };
    }
    case 'meeting.added':
      return { what: `meeting added (${Array.isArray(d.races) ? d.races.length : 0} races)`, tone: 'info' };
    case 'meeting.race_added':
      return { what: `race added: R${num(rec(d.race).raceNumber) ?? '?'}`, tone: 'info' };
    case 'meeting.race_removed':
      return { what: `race removed: R${num(rec(d.race).raceNumber) ?? '?'}`, tone: 'alert' };
    default:
      return describeMarket(event) ?? { what: event.type, tone: 'info' };
  }
}

export function describeEvent(event: RaceEvent): EventLine {
  return { where: whereOf(event), ...what(event) };
}
