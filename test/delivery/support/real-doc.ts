/**
 * Race documents at real size: the captured Awapuni event (test/fixtures/real, ~195 KB minified),
 * normalised as the pipeline does, renamed per race and nudged per version so every document differs.
 */
import { readFileSync } from 'node:fs';
import type { EventResponse } from '../../../src/upstream/schemas.js';
import { normaliseEvent } from '../../../src/watch/track/normalise.js';

const payload = JSON.parse(
  readFileSync(new URL('../../fixtures/real/event-final-awapuni.json', import.meta.url), 'utf8'),
) as EventResponse;
const base = normaliseEvent(payload) as unknown as {
  race: Record<string, unknown>;
  runners: Record<string, Record<string, unknown>>;
};

/** The real document as race `raceId` of meeting `meetingId`, version `n` (its runners' odds move with n). */
export function realDoc(raceId: string, n = 0, meetingId = 'M1') {
  const doc = structuredClone(base);
  doc.race.event_id = raceId;
  doc.race.meeting_id = meetingId;
  let i = 0;
  for (const runner of Object.values(doc.runners)) {
    runner.odds = { ...(runner.odds as object), fixed_win: 2 + i++ + n / 10 };
  }
  return doc;
}

export const realDocBytes = Buffer.byteLength(JSON.stringify(realDoc('R1')));
