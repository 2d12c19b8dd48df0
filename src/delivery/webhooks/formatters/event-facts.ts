/**
 * Reads what a chat message needs from an event's `data`, defensively: the data is typed per event in
 * clients/js/src/event-types.ts, but a formatter must never throw, so unknown shapes yield fewer facts and the
 * message degrades to a generic one.
 */

import { dividendRowsOf, formatDividendLine, summariseDividends } from '@racewire/client/dividends';
import { MARKET_EVENT_TYPES } from '@racewire/client/protocol';
import type { RaceEvent } from '../../../events/envelope.js';
import { marketMessage } from './market-messages.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined;
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The first string or finite number under any of `keys` (camelCase or snake_case) in any of `holders`. */
export function pick(holders: (Rec | undefined)[], ...keys: string[]): string | undefined {
  for (const h of holders) {
    if (!h) continue;
    for (const k of keys) {
      for (const name of [k, snake(k)]) {
        const v = h[name];
        if (typeof v === 'string' && v.trim() !== '') return v;
        if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      }
    }
  }
  return undefined;
}

export interface RunnerFact {
  number?: string;
  name?: string;
}

export interface EventFacts {
  meetingName?: string;
  raceNumber?: string;
  raceName?: string;
  country?: string;
  startTime?: string;
  runner?: RunnerFact;
  /** Placings, in order. */
  placings: (RunnerFact & { position?: string })[];
  /** One line per pool, in reading order (Win first): `Place #2 $1.70, #4 $1.90`. */
  dividends: string[];
  reason?: string;
  from?: string;
  to?: string;
  status?: string;
  significant: boolean;
}

const runnerOf = (v: unknown): RunnerFact | undefined => {
  const r = rec(v);
  if (!r) return undefined;
  const number = pick([r], 'runnerNumber', 'number', 'saddlecloth');
  const name = pick([r], 'name', 'runnerName', 'entrantName');
  return number || name ? { number, name } : undefined;
};

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v.slice(0, 50) : []);

export function eventFacts(event: RaceEvent): EventFacts {
  const data = rec(event.data) ?? {};
  const race = rec(data.race);
  const meeting = rec(data.meeting);
  const holders = [data, race, meeting];
  const runner = runnerOf(data.runner) ?? runnerOf(data);
  const placings = list(data.results ?? data.placings ?? race?.results).flatMap((p) => {
    const r = runnerOf(p);
    const position = pick([rec(p)], 'position', 'place', 'finishPosition');
    return r || position ? [{ ...r, position }] : [];
  });
  const dividends = summariseDividends(dividendRowsOf(data.dividends ?? race?.dividends)).map(
    formatDividendLine,
  );
  return {
    meetingName: pick([data, meeting, race], 'meetingName', 'displayMeetingName', 'venue'),
    raceNumber: pick(holders, 'raceNumber'),
    raceName: pick([data, race], 'raceName') ?? pick([race], 'name'),
    country: pick(holders, 'country'),
    startTime: pick(holders, 'startTime', 'advertisedStart'),
    runner: event.type.startsWith('runner.') || event.type.startsWith('odds.') ? runner : undefined,
    placings,
    dividends,
    reason: pick([data], 'reason', 'message'),
    from: pick([data], 'from', 'previous', 'old', 'before'),
    to: pick([data], 'to', 'current', 'new', 'after'),
    status: pick([data], 'status', 'to'),
    significant: data.significant === true,
  };
}

export const runnerLabel = (r: RunnerFact | undefined) =>
  r ? [r.number && `#${r.number}`, r.name].filter(Boolean).join(' ') : undefined;

/** "Flemington R3 (Race name)" or the ids when names are missing. */
export function raceLabel(event: RaceEvent, f: EventFacts): string {
  const where = f.meetingName ?? `meeting ${event.meetingId}`;
  const race = f.raceNumber ? ` R${f.raceNumber}` : event.raceId ? ` race ${event.raceId}` : '';
  return `${where}${race}${f.raceName ? ` (${f.raceName})` : ''}`;
}

/** Event types that chat endpoints get by default. */
export const CHAT_ALERT_TYPES = [
  'runner.scratched',
  'race.results',
  'race.dividends',
  'race.abandoned',
  'odds.changed',
  'odds.plunge',
  'market.big_bet',
];

/** A chat headline and lines for an event, or undefined when it is not worth a message. */
export function chatMessage(event: RaceEvent): { title: string; lines: string[]; tone: Tone } | undefined {
  const f = eventFacts(event);
  const race = raceLabel(event, f);
  if ((MARKET_EVENT_TYPES as readonly string[]).includes(event.type)) return marketMessage(event, race);
  const runner = runnerLabel(f.runner);
  switch (event.type) {
    case 'runner.scratched':
      return { title: `Scratched: ${runner ?? 'a runner'}`, lines: [race], tone: 'warning' };
    case 'race.results':
      return {
        title: `Results: ${race}`,
        lines: [
          ...f.placings.map((p) => `${p.position ?? '?'}. ${runnerLabel(p) ?? 'unknown runner'}`),
          ...f.dividends,
        ],
        tone: 'success',
      };
    case 'race.dividends':
      return {
        title: `Dividends: ${race}`,
        lines: f.dividends,
        tone: 'success',
      };
    case 'race.abandoned':
      return { title: `Abandoned: ${race}`, lines: f.reason ? [f.reason] : [], tone: 'danger' };
    case 'odds.changed':
      if (!f.significant) return undefined;
      return {
        title: `Odds move: ${runner ?? 'a runner'}`,
        lines: [race, ...(f.from || f.to ? [`${f.from ?? '?'} -> ${f.to ?? '?'}`] : [])],
        tone: 'info',
      };
    case 'webhook.test':
      return { title: 'racewire test message', lines: ['This endpoint is set up correctly.'], tone: 'info' };
    default:
      return {
        title: `${event.type}: ${race}`,
        lines: f.status ? [`status: ${f.status}`] : [],
        tone: 'info',
      };
  }
}

export type Tone = 'info' | 'success' | 'warning' | 'danger';
