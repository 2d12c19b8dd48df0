/** The real Awapuni R1 payload (validated) and helpers to script changes on copies of it. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EventResponse, eventResponseSchema } from '../../src/upstream/schemas.js';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURE_PATH = join(here, '../fixtures/watch/event-final-awapuni.json');
export const FIXTURE_TEXT = readFileSync(FIXTURE_PATH, 'utf8');
const parsed = eventResponseSchema.parse(JSON.parse(FIXTURE_TEXT));

export const RACE_ID = '0f57e087-00d9-4c61-9549-835abe2ae2ed';
export const MEETING_ID = 'e9f2039d-d489-4a7d-aae1-d66225f1a5f4';
/** advertised_start of the real race, Unix seconds (2025-07-17T00:50:00Z). */
export const ADVERTISED = 1752713400;

/** A fresh deep copy of the real (Final) payload. */
export const realPayload = (): EventResponse => structuredClone(parsed);

// biome-ignore lint/suspicious/noExplicitAny: test scripts poke at loose payload members
export type Loose = any;

/** A copy of `payload` changed by `fn` (which gets a loose view of `data`). */
export function change(payload: EventResponse, fn: (data: Loose) => void): EventResponse {
  const copy = structuredClone(payload);
  fn(copy.data as Loose);
  return copy;
}

/** The real race as it looked before the jump: Open, no actual start, results or dividends, no protest. */
export function openPayload(): EventResponse {
  return change(realPayload(), (d) => {
    d.race.status = 'Open';
    d.race.actual_start = 0;
    d.race.protest = false;
    d.results = [];
    d.dividends = [];
  });
}

export const runner = (d: Loose, number: number): Loose =>
  d.runners.find((r: Loose) => r.runner_number === number);
