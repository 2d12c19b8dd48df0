/**
 * The real-data golden suite (docs/testing.md#golden-files): the real payload and its synthetic variants
 * (real-variants.ts) replayed as short race sequences through the whole pipeline as the service runs it:
 * the client's schema on the JSON text, the trust model, normalise, diff and detect (trackRace, with the
 * race's money memory). Each sequence's exact events are compared with its golden file, which a person has
 * read line by line. `UPDATE_GOLDEN=1` writes the files instead of comparing: review the diff before
 * committing it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { DetectedRaceEvent } from '@racewire/client/protocol';
import { describe, expect, it } from 'vitest';
import {
  type EventResponse,
  eventResponseSchema,
  meetingsResponseSchema,
} from '../../src/upstream/schemas.js';
import { detectMeetingChanges } from '../../src/watch/detect/detect-meetings.js';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';
import { type RaceState, trackRace } from '../../src/watch/track/track-race.js';
import {
  asRace,
  deadHeat,
  emergencyDeadline,
  emergencyPromoted,
  interim,
  openOutsideField,
  openWithBets,
  openWithNoBets,
  partialFinal,
  swapped,
  withEmergency,
  withExtraPools,
} from './real-variants.js';
import { change as edit, type Loose, openPayload, realPayload } from './support.js';

const fixture = (path: string): Loose =>
  JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8'));

/** The small event derived from the real one (test/fixtures/upstream): two runners, two results, two dividends. */
const small = eventResponseSchema.parse(fixture('upstream/event-small.json'));
const smallOpen = edit(small, (d) => {
  d.race.status = 'Open';
  d.race.actual_start = 0;
  d.results = [];
  d.dividends = [];
});

interface Step {
  name: string;
  payload: EventResponse;
  /** Seconds after the first step (race time); each step's payload is generated then. */
  at: number;
}

const T0 = Date.parse('2025-07-17T00:30:00Z');

/** Steps `at` seconds apart, in order: [name, payload][] -> Step[]. */
const every = (seconds: number, steps: [string, EventResponse][]): Step[] =>
  steps.map(([name, payload], i) => ({ name, payload, at: i * seconds }));

/** A payload seen again (a held claim needs 3 payloads over 20 s: trust.ts). */
const thrice = (name: string, payload: EventResponse): [string, EventResponse][] => [
  [name, payload],
  [`${name} (again)`, payload],
  [`${name} (third time)`, payload],
];

const UPHELD = 'Protest UPHELD 2nd (#4) vs 1st (#2)';
const DISMISSED = 'Protest DISMISSED - 2nd (#4) vs 1st (#2)';

const SEQUENCES: Record<string, Step[]> = {
  'open-interim-final': every(60, [
    ['open', openPayload()],
    ['interim', interim()],
    ['final', realPayload()],
  ]),
  'big-bets-race-1': every(60, [
    ['open, bet lists empty', openWithNoBets()],
    ['the meeting bets listed', openWithBets()],
  ]),
  'big-bets-race-4': every(60, [
    ['race 4 open, bet lists empty', asRace(openWithNoBets(), 4)],
    ['the meeting bets listed', asRace(openWithBets(), 4)],
  ]),
  'outside-field': every(120, [
    ['open, the real mover and tracker', openPayload()],
    ['mover, tips and tracker outside the field', openOutsideField(0)],
    ['money for the outside entrant', openOutsideField(6)],
  ]),
  'partial-final': every(60, [
    ['open', openPayload()],
    ['final, top 4, no margins', partialFinal()],
  ]),
  'interim-all-final-top-4': every(15, [
    ['open', openPayload()],
    ['interim, every runner placed', interim()],
    ...thrice('final, top 4 only', partialFinal()),
  ]),
  'dead-heat': every(60, [
    ['open', openPayload()],
    ['interim, dead heat for third', deadHeat('Interim')],
    ['final, dead heat for third', deadHeat('Final')],
  ]),
  'emergency-promoted': every(60, [
    ['open, #8 first emergency', withEmergency()],
    ['#5 scratched, #8 promoted', emergencyPromoted()],
    ['deadline: #7, the second emergency, scratched', emergencyDeadline()],
  ]),
  'protest-upheld': every(15, [
    ['open', openPayload()],
    ['interim, protest lodged', interim(true)],
    ...thrice('protest upheld, first and second swap', swapped(interim(true, UPHELD))),
    ['final', protested(swapped(realPayload()), UPHELD)],
  ]),
  'protest-dismissed': every(15, [
    ['open', openPayload()],
    ['interim, protest lodged', interim(true)],
    ['protest dismissed', interim(true, DISMISSED)],
    ['final', protested(realPayload(), DISMISSED)],
  ]),
  'event-small-open-final': every(60, [
    ['open', smallOpen],
    ['final', small],
  ]),
  'tote-tick': every(15, [
    ['open', openPayload()],
    ['a tote tick: every tote price moves, #1 fixed win firms', toteTick(false)],
    ...thrice('#8 tote place withdrawn', toteTick(true)),
  ]),
  'extra-pools': every(60, [
    ['open, extra pools', withExtraPools(false)],
    ['final, extra dividends interleaved', withExtraPools(true)],
  ]),
};

/** The open race one tote tick later: each pool win price 5 % shorter, each pool place 0.1 longer. */
function toteTick(placeWithdrawn: boolean): EventResponse {
  return edit(openPayload(), (d) => {
    for (const r of d.runners as Loose[]) {
      r.odds.pool_win = Math.round(r.odds.pool_win * 0.95 * 10) / 10;
      r.odds.pool_place = Math.round((r.odds.pool_place + 0.1) * 10) / 10;
      if (r.runner_number === 1) r.odds.fixed_win = 4.6;
      if (placeWithdrawn && r.runner_number === 8) r.odds.pool_place = null;
    }
  });
}

function protested(payload: EventResponse, reason: string): EventResponse {
  const copy = structuredClone(payload);
  Object.assign(copy.data.race, { protest: true, protest_reason: reason });
  return copy;
}

/** An event as a golden file holds it: its type and data, less the race context (the same on every one). */
const golden = (e: DetectedRaceEvent) => {
  const { race, ...data } = e.data as { race: { status: string } };
  return { type: e.type, status: race.status, ...data };
};

/** Runs a sequence through the pipeline as the race pipeline does, threading the race's state. */
function replay(steps: Step[]) {
  let state: RaceState | undefined;
  return steps.map(({ name, payload, at }) => {
    const observedAt = T0 + at * 1000;
    const sent = structuredClone(payload);
    sent.header = { ...sent.header, generated_time: new Date(observedAt).toISOString() };
    const parsed = eventResponseSchema.parse(JSON.parse(JSON.stringify(sent)));
    const result = trackRace(state, parsed, observedAt, {
      market: { thresholds: DEFAULT_MARKET_THRESHOLDS },
    });
    state = result.state;
    const { outcome } = result;
    if (outcome.kind === 'rejected') return { step: name, rejected: outcome.code };
    const events = result.entries.flatMap((e) => (e.kind === 'event' ? [e.event as DetectedRaceEvent] : []));
    return { step: name, kind: outcome.kind, held: outcome.held ?? [], events: events.map(golden) };
  });
}

/**
 * The real meeting lists through the client schema and the meeting detector: the list with one meeting
 * and one race held back, then the real list.
 */
const MEETING_SEQUENCES: Record<string, Loose> = {
  'meetings-day': fixture('real/meetings-day.json'),
  'meeting-detail': fixture('real/meeting-detail.json'),
};

function meetingEvents(real: Loose) {
  const earlier = structuredClone(real);
  const meetings: Loose[] = earlier.data.meetings;
  if (meetings.length > 1) meetings.pop();
  meetings[0].races.pop();
  const parse = (payload: Loose) => meetingsResponseSchema.parse(JSON.parse(JSON.stringify(payload)));
  const first = parse(earlier).data.meetings;
  return [
    { step: 'first look', events: detectMeetingChanges([], first) },
    { step: 'the real list', events: detectMeetingChanges(first, parse(real).data.meetings) },
  ];
}

const goldenPath = (name: string) => new URL(`../fixtures/golden/${name}.golden.json`, import.meta.url);

function expectGolden(name: string, actual: unknown) {
  const path = goldenPath(name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(new URL('.', path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
  }
  expect(existsSync(path), `${path.pathname} is missing: run with UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(actual).toEqual(JSON.parse(readFileSync(path, 'utf8')));
}

describe('golden: real payloads and their variants through the whole pipeline', () => {
  for (const [name, steps] of Object.entries(SEQUENCES)) {
    it(`${name} gives exactly the events of its golden file`, () => expectGolden(name, replay(steps)));
  }
  for (const [name, real] of Object.entries(MEETING_SEQUENCES)) {
    it(`${name} gives exactly the events of its golden file`, () => expectGolden(name, meetingEvents(real)));
  }
});
