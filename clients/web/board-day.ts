/**
 * The board's day in the viewer's own time zone. The racing API lists about three UTC days of meetings with
 * no date on any, so a meeting's day is the local date of its first race; the board shows one day at a time.
 * Pure: the zone and the instant are passed in.
 */
import type { MeetingSummary } from './api.js';

/** `2026-11-26`: the calendar date of an instant (ms) in a time zone. */
export function dayKey(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The date `days` after a `YYYY-MM-DD` key (calendar arithmetic, no zone involved). */
export function shiftDay(key: string, days: number): string {
  const [y, m, d] = key.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** The local date of the meeting's first race, or undefined when no race has a readable start. */
export function meetingDay(meeting: MeetingSummary, timeZone: string): string | undefined {
  const starts = meeting.races.map((r) => Date.parse(r.startTime)).filter(Number.isFinite);
  return starts.length ? dayKey(Math.min(...starts), timeZone) : undefined;
}

export function meetingsOfDay(
  meetings: readonly MeetingSummary[],
  day: string,
  timeZone: string,
): MeetingSummary[] {
  return meetings.filter((m) => meetingDay(m, timeZone) === day);
}

/** `Thu 26 Nov` for a `YYYY-MM-DD` key. */
export function formatDay(key: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  }).format(Date.parse(`${key}T12:00:00Z`));
}

/** The day switch: yesterday, today and tomorrow of `today`, with their dates. */
export function daySwitch(today: string): { offset: number; key: string; name: string; date: string }[] {
  return [
    { offset: -1, name: 'Yesterday' },
    { offset: 0, name: 'Today' },
    { offset: 1, name: 'Tomorrow' },
  ].map(({ offset, name }) => {
    const key = shiftDay(today, offset);
    return { offset, key, name, date: formatDay(key) };
  });
}

/** `14:05` (`14:05:09` with seconds): the wall time of an instant in a zone, 24-hour as race cards print it. */
export function localTime(ms: number, timeZone: string, seconds = false): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: seconds ? '2-digit' : undefined,
    hourCycle: 'h23',
  }).format(ms);
}

/** `03:05 UTC, Thu 26 Nov`: the same instant in UTC, for the hover. */
export function utcTime(ms: number): string {
  return `${localTime(ms, 'UTC')} UTC, ${formatDay(dayKey(ms, 'UTC'))}`;
}
