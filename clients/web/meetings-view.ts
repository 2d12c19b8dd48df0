/** Today's meetings, each with its races as chips; a click selects the race (and the URL hash follows). */
import type { MeetingSummary } from './api.js';
import { fill, h } from './dom.js';

const CODE_LABEL: Record<string, string> = { T: 'Gallops', H: 'Harness', G: 'Greyhounds' };

export function renderMeetings(
  root: HTMLElement,
  meetings: MeetingSummary[],
  selected: string | undefined,
  onSelect: (raceId: string) => void,
): void {
  if (meetings.length === 0) {
    fill(root, h('p', { class: 'muted' }, 'No meetings yet: discovery runs every few seconds.'));
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
        { class: 'meeting', 'data-testid': 'meeting', 'data-meeting-id': m.meetingId },
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
          ...m.races.map((r) =>
            h(
              'button',
              {
                type: 'button',
                class: `chip status-${r.status.toLowerCase().replace(/[^a-z]/g, '')}${r.raceId === selected ? ' selected' : ''}`,
                'data-testid': 'race-link',
                'data-race-id': r.raceId,
                'data-status': r.status,
                title: `R${r.raceNumber} ${r.name}\n${r.status} · ${new Date(r.startTime).toISOString().slice(11, 16)} UTC`,
                onclick: () => onSelect(r.raceId),
              },
              `R${r.raceNumber}`,
            ),
          ),
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
