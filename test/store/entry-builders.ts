/** Builders of new entries for the store tests, and fixed times. */
import type { NewEntry } from '../../src/events/envelope.js';

export const T0 = new Date('2026-11-22T10:00:00.000Z');
export const T1 = new Date('2026-11-22T10:00:05.250Z');

export const snapshot = (document: unknown): NewEntry => ({ kind: 'snapshot', document });
export const patch = (ops: Array<{ op: 'replace'; path: string; value: unknown }>): NewEntry => ({
  kind: 'patch',
  ops,
});
export const event = (type: string, data: unknown = {}): NewEntry => ({
  kind: 'event',
  event: { type, meetingId: 'm1', raceId: 'r1', data },
});
