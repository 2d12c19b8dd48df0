/**
 * The next-to-jump strip: the next races across every meeting and code, each with its local start time and a
 * countdown on the server's clock (which can run faster than the browser's). A click selects the race.
 */
import { localTime, utcTime } from './board-day.js';
import { fill, h } from './dom.js';
import type { NextRace } from './next-to-jump.js';
import { jumpLabel } from './server-clock.js';

export function renderNextToJump(
  root: HTMLElement,
  races: readonly NextRace[],
  timeZone: string,
  selected: string | undefined,
  onSelect: (raceId: string) => void,
): void {
  if (races.length === 0) {
    fill(root, h('span', { class: 'muted small' }, 'No race left to jump in the listing.'));
    return;
  }
  fill(
    root,
    h('span', { class: 'next-title' }, 'Next to jump'),
    ...races.map((r) =>
      h(
        'button',
        {
          type: 'button',
          class: `next-race${r.raceId === selected ? ' selected' : ''}`,
          'data-testid': 'next-race',
          'data-race-id': r.raceId,
          'data-start': r.start,
          title: `${r.meetingName} R${r.raceNumber} · ${utcTime(r.start)}`,
          onclick: () => onSelect(r.raceId),
        },
        h('span', { class: `code code-${r.category}` }, r.category),
        h('span', { class: 'next-name' }, `${r.meetingName} R${r.raceNumber}`),
        h('time', { class: 'next-time mono' }, localTime(r.start, timeZone)),
        h('span', { class: 'next-countdown mono', 'data-testid': 'next-countdown' }),
      ),
    ),
  );
}

/** Updates the strip's countdowns; `serverNow` is the server's (possibly accelerated) time. */
export function tickNextToJump(root: HTMLElement, serverNow: number | undefined): void {
  if (serverNow === undefined) return;
  root.querySelectorAll<HTMLElement>('[data-testid="next-race"]').forEach((el) => {
    const countdown = el.querySelector<HTMLElement>('[data-testid="next-countdown"]');
    if (!countdown) return;
    const label = jumpLabel(Number(el.dataset.start) - serverNow);
    countdown.textContent = label.text;
    countdown.classList.toggle('late', label.late);
  });
}
