/**
 * One day's meetings in the viewer's zone, each with its races as chips (number and local start time; UTC on
 * hover), and the day switch above them. A click selects the race (and the URL hash follows).
 */
import type { MeetingSummary } from './api.js';
import { daySwitch, formatDay, localTime, meetingsOfDay, utcTime } from './board-day.js';
import { fill, h } from './dom.js';

const CODE_LABEL: Record<string, string> = { T: 'Gallops', H: 'Harness', G: 'Greyhounds' };

export interface DayChoice {
  /** The viewer's today and the day shown, `YYYY-MM-DD` in `timeZone`. */
  today: string;
  day: string;
  timeZone: string;
}

/** The switch (yesterday, today, tomorrow, with dates) and the panel's title, which names the day shown. */
export function renderDaySwitch(
  title: HTMLElement,
  root: HTMLElement,
  { today, day }: DayChoice,
  onDay: (day: string) => void,
): void {
  const days = daySwitch(today);
  const shown = days.find((d) => d.key === day);
  title.textContent = shown ? `${shown.name} · ${shown.date}` : formatDay(day);
  title.dataset.day = day;
  fill(
    root,
    ...days.map((d) =>
      h(
        'button',
        {
          type: 'button',
          class: `day${d.key === day ? ' selected' : ''}`,
          'data-testid': 'day',
          'data-day': d.key,
          'aria-pressed': String(d.key === day),
          onclick: () => onDay(d.key),
        },
        h('span', { class: 'day-name' }, d.name),
        h('span', { class: 'day-date muted' }, d.date),
      ),
    ),
  );
}

export function renderMeetings(
  root: HTMLElement,
  allMeetings: readonly MeetingSummary[],
  { day, timeZone }: DayChoice,
  selected: string | undefined,
  onSelect: (raceId: string) => void,
): void {
  const meetings = meetingsOfDay(allMeetings, day, timeZone);
  if (meetings.length === 0) {
    fill(
      root,
      h(
        'p',
        { class: 'muted' },
        allMeetings.length === 0
          ? 'No meetings yet: discovery runs every few seconds.'
          : `No meetings listed for ${formatDay(day)}.`,
      ),
    );
    return;
  }
  // Meetings with a race still to run first, by their next jump; finished meetings last.
  const sorted = [...meetings].sort(
    (a, b) => nextJump(a) - nextJump(b) || a.country.localeCompare(b.country) || a.name.localeCompare(b.name),
  );
  fill(
    root,
    ...sorted.map((m) =>
      h(
        'div',
        { class: 'meeting', 'data-testid': 'meeting', 'data-meeting-id': m.meetingId, 'data-day': day },
        h(
          'div',
          { class: 'meeting-head' },
          h('span', { class: `code code-${m.category}` }, m.category),
          h('span', { class: 'meeting-name' }, m.name),
          h('span', { class: 'muted small' }, `${m.country} · ${CODE_LABEL[m.category] ?? m.category}`),
        ),
        h(
          'div',
          { class: 'chips' },
          ...m.races.map((r) => {
            const start = Date.parse(r.startTime);
            const known = Number.isFinite(start);
            return h(
              'button',
              {
                type: 'button',
                class: `chip status-${r.status.toLowerCase().replace(/[^a-z]/g, '')}${r.raceId === selected ? ' selected' : ''}`,
                'data-testid': 'race-link',
                'data-race-id': r.raceId,
                'data-status': r.status,
                title: `R${r.raceNumber} ${r.name}\n${r.status}${known ? ` · ${utcTime(start)}` : ''}`,
                onclick: () => onSelect(r.raceId),
              },
              h('span', { class: 'chip-no' }, `R${r.raceNumber}`),
              known
                ? h(
                    'time',
                    { class: 'chip-time', 'data-testid': 'race-time', datetime: r.startTime },
                    localTime(start, timeZone),
                  )
                : null,
            );
          }),
        ),
      ),
    ),
  );
}

const DONE = new Set(['Final', 'Abandoned']);

/** The start of the meeting's first race not yet settled (Infinity when all are). */
export function nextJump(m: MeetingSummary): number {
  let best = Number.POSITIVE_INFINITY;
  for (const r of m.races) {
    const t = Date.parse(r.startTime);
    if (!DONE.has(r.status) && Number.isFinite(t) && t < best) best = t;
  }
  return best;
}
