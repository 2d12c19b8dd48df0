/**
 * Every event as short text, the one wording the board's feed, racewire-tail and the Slack/Discord alerts
 * share (docs/events.md#events-as-text). It returns parts, not markup: where, a title, facts and details,
 * and a tone, which each caller marks up its own way (plain and coloured in a terminal, DOM text on the board,
 * escaped mrkdwn for Slack, escaped markdown for Discord). Pure and defensive: an event is data from the
 * network, so a missing member gives a shorter text with `?`, never an exception.
 */
import { dividendRowsOf, formatDividendLine, summariseDividends } from './dividends.js';
import type { RaceEvent } from './envelope.js';
import { marketWords } from './market-text.js';
import {
  type EventWords,
  formatDuration,
  hhmmUtc,
  jumpWording,
  list,
  num,
  formatPrice as price,
  rec,
  runnerLabel,
  signedPct,
  str,
  type Tone,
} from './text-parts.js';

export { formatPrice, type Tone } from './text-parts.js';

export interface EventText {
  /** Where, short: `Awapuni R3`; a meeting event's meeting name; the meeting id when no name came. */
  where: string;
  /** The race in full, for a message read on its own: `Awapuni Synthetic R1 (PRYDA HANDICAP 1700)`. */
  race: string;
  /** What happened, one line: `#4 Tickford scratched (late)`, `Final dividends`. */
  title: string;
  /** The news itself when it is a list (placings, one line per dividend pool): one-line forms show the first few. */
  facts: string[];
  /** Context a message read on its own adds (flucs, when a bet was placed, a pool's total): one-line forms leave it out. */
  details: string[];
  tone: Tone;
}

/** Most placings a text lists (a field is at most 24; the rest of a longer list is not news). */
const MAX_PLACINGS = 30;

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const who = (runner: unknown) => runnerLabel(runner) ?? 'A runner';

function placing(row: unknown): string {
  const r = rec(row);
  const position = num(r.position);
  const margin = num(r.marginLength);
  const notes = [
    r.deadHeat === true && 'dead heat',
    margin !== undefined && position !== 1 && `${margin}L`,
  ].filter(Boolean);
  return `${position ?? '?'}. ${runnerLabel(r) ?? '?'}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

function startMoved(deltaSeconds: number | undefined): string {
  if (deltaSeconds === undefined || Math.round(deltaSeconds) === 0) return 'Start time moved';
  return `Start time ${deltaSeconds > 0 ? 'put back' : 'brought forward'} ${formatDuration(deltaSeconds)}`;
}

/** Most pool changes a text lists: two pools of a 24-runner field. */
const MAX_POOL_CHANGES = 48;

/**
 * One tote price as a line: `#1 Tickford tote win $4.60 → $4.40 (-4.3%)`, `… opened at $1.90`,
 * `… withdrawn (was $4.40)`.
 */
function poolLine(change: unknown): string {
  const c = rec(change);
  const label = `${who(c.runner)} ${(str(c.market) ?? '?').replace('pool_', 'tote ')}`;
  if (c.direction === 'opened') return `${label} opened at ${price(c.to)}`;
  if (c.direction === 'withdrawn') return `${label} withdrawn (was ${price(c.from)})`;
  const pct = num(c.changePct) === undefined ? '' : ` (${signedPct(c.changePct)})`;
  return `${label} ${price(c.from)} → ${price(c.to)}${pct}`;
}

/** `odds.pools_changed`: one line per tote price, in the event's order (by runner number, win then place). */
function poolsWords(d: Record<string, unknown>): EventWords {
  const changes = list(d.changes, MAX_POOL_CHANGES);
  const total = Array.isArray(d.changes) ? d.changes.length : 0;
  const significant = changes.filter((c) => rec(c).significant === true).length;
  return {
    title: `Tote: ${total} price${total === 1 ? '' : 's'} changed${significant ? `, ${significant} significant` : ''}`,
    facts: changes.map(poolLine),
    tone: 'info',
  };
}

/** The wording of the race, runner, price and meeting events (the market events are market-text.ts's). */
function raceWords(type: string, d: Record<string, unknown>): EventWords | undefined {
  switch (type) {
    case 'odds.changed': {
      const dir = str(d.direction) ?? 'moved';
      const market = (str(d.market) ?? '').replace('_', ' ');
      const pct = num(d.changePct) === undefined ? '' : ` (${signedPct(d.changePct)})`;
      return {
        title: `${who(d.runner)} ${dir}${market ? ` ${market}` : ''} ${price(d.from)} → ${price(d.to)}${pct}`,
        tone: dir === 'firming' ? 'up' : dir === 'drifting' ? 'down' : 'info',
      };
    }
    case 'odds.pools_changed':
      return poolsWords(d);
    case 'runner.scratched':
      return { title: `${who(d.runner)} scratched${d.late === true ? ' (late)' : ''}`, tone: 'alert' };
    case 'runner.reinstated':
      return { title: `${who(d.runner)} reinstated`, tone: 'info' };
    case 'runner.added':
      return { title: `${who(d.runner)} added to the field`, tone: 'info' };
    case 'runner.removed':
      return { title: `${who(d.runner)} removed from the field`, tone: 'alert' };
    case 'runner.jockey_changed':
      return { title: `${who(d.runner)} rider ${str(d.from) ?? '?'} → ${str(d.to) ?? '?'}`, tone: 'info' };
    case 'race.status_changed':
      return { title: `Status ${str(d.from) ?? '?'} → ${str(d.to) ?? '?'}`, tone: 'info' };
    case 'race.abandoned':
      return { title: 'Abandoned', details: str(d.from) ? [`Was ${str(d.from)}`] : [], tone: 'alert' };
    case 'race.jumped':
      return { title: jumpWording(num(d.delaySeconds)), tone: 'info' };
    case 'race.start_time_changed':
      return {
        title: startMoved(num(d.deltaSeconds)),
        details: str(d.to) ? [`Now ${hhmmUtc(d.to)}`] : [],
        tone: 'alert',
      };
    case 'race.track_condition_changed':
      return { title: `Track ${str(d.from) ?? '?'} → ${str(d.to) ?? '?'}`, tone: 'info' };
    case 'race.protest':
      return {
        title: `Protest ${str(d.status) ?? ''}`.trim(),
        facts: str(d.reason) ? [str(d.reason) as string] : [],
        tone: 'alert',
      };
    case 'race.favourite_changed':
      return {
        title: `New favourite ${who(d.to)} at ${price(d.price)}`,
        details: runnerLabel(d.from) ? [`Was ${runnerLabel(d.from)}`] : [],
        tone: 'up',
      };
    case 'race.results':
      return {
        title: str(d.kind) ? `${capitalised(str(d.kind) as string)} results` : 'Results',
        facts: list(d.results, MAX_PLACINGS).map(placing),
        tone: 'result',
      };
    case 'race.dividends':
      return {
        title: str(d.status) ? `${str(d.status)} dividends` : 'Dividends',
        facts: summariseDividends(dividendRowsOf(d.dividends)).map(formatDividendLine),
        tone: 'result',
      };
    case 'meeting.added': {
      const races = Array.isArray(d.races) ? d.races.length : 0;
      return { title: `Meeting added (${races} race${races === 1 ? '' : 's'})`, tone: 'info' };
    }
    case 'meeting.race_added':
    case 'meeting.race_removed': {
      const race = rec(d.race);
      return {
        title: `Race ${type === 'meeting.race_added' ? 'added' : 'removed'}: R${num(race.raceNumber) ?? '?'}`,
        details: str(race.name) ? [str(race.name) as string] : [],
        tone: type === 'meeting.race_added' ? 'info' : 'alert',
      };
    }
    default:
      return undefined;
  }
}

/** `Awapuni R3` and `Awapuni R3 (Race name)`; a meeting event's meeting. */
function placeOf(event: RaceEvent, d: Record<string, unknown>): { where: string; race: string } {
  if (event.type.startsWith('meeting.')) {
    const where = str(rec(d.meeting).name) ?? event.meetingId;
    return { where, race: where };
  }
  const race = rec(d.race);
  const number = num(race.raceNumber);
  const where = `${str(race.meetingName) ?? event.meetingId}${number === undefined ? '' : ` R${number}`}`;
  const name = str(race.raceName);
  return { where, race: name ? `${where} (${name})` : where };
}

/**
 * The text of any event. Every type of docs/events.md has its own wording; a type racewire does not send
 * (a newer server's) is titled with its type name, in the info tone.
 */
export function describeEvent(event: RaceEvent): EventText {
  const d = rec(event.data);
  const words = raceWords(event.type, d) ??
    marketWords(event.type, d) ?? { title: String(event.type), tone: 'info' };
  return { ...placeOf(event, d), facts: [], details: [], ...words };
}

/**
 * The title and the first `maxFacts` facts on one line, for a feed or a terminal:
 * `Final dividends: Win #2 $6.60 · Place #2 $1.70, #4 $1.90 · Quinella 2-4 $13.70 · +2 more`.
 */
export function summaryLine(text: EventText, maxFacts = 3): string {
  if (text.facts.length === 0) return text.title;
  const shown = text.facts.slice(0, maxFacts).join(' · ');
  const more = text.facts.length > maxFacts ? ` · +${text.facts.length - maxFacts} more` : '';
  return `${text.title}: ${shown}${more}`;
}
