/**
 * The running feed: newest first, capped, duplicates (by id) dropped. Live events from the firehose go on
 * top; the recent history from REST goes below what is shown, so it never lands above a newer live event.
 */
import { MARKET_EVENT_TYPES, type RaceEvent } from '@racewire/client';
import { describeEvent, summaryLine } from '@racewire/client/event-text';
import { localTime } from './board-day.js';
import { h } from './dom.js';

const MAX_ITEMS = 80;
/** Many on a busy day: shown only with the toggle, so they cannot push the scratchings and results out. */
const MANY: ReadonlySet<string> = new Set(['odds.changed', 'odds.pools_changed', ...MARKET_EVENT_TYPES]);

export class FeedView {
  private readonly seen = new Set<string>();
  showOdds = false;

  /** `timeZone`: the viewer's, in which event times are shown (the UTC timestamp on hover). */
  constructor(
    private readonly list: HTMLElement,
    private readonly timeZone: string,
    private readonly onSelect: (raceId: string) => void,
  ) {}

  add(event: RaceEvent): void {
    const item = this.item(event);
    if (item) this.list.prepend(item);
    this.trim();
  }

  /** Older events, newest first, shown below the current items. */
  addHistory(events: readonly RaceEvent[]): void {
    for (const event of events) {
      const item = this.item(event);
      if (item) this.list.append(item);
    }
    this.trim();
  }

  private item(event: RaceEvent): HTMLLIElement | undefined {
    if (this.seen.has(event.id)) return undefined;
    if (MANY.has(event.type) && !this.showOdds) return undefined;
    this.seen.add(event.id);
    const text = describeEvent(event);
    const at = Date.parse(event.timestamp);
    const time = Number.isFinite(at) ? localTime(at, this.timeZone, true) : '';
    const raceId = event.raceId;
    return h(
      'li',
      {
        class: `feed-item tone-${text.tone}`,
        'data-testid': 'feed-item',
        'data-type': event.type,
        'data-id': event.id,
      },
      h('time', { class: 'muted', datetime: event.timestamp, title: event.timestamp }, time),
      raceId
        ? h(
            'button',
            { type: 'button', class: 'where link', onclick: () => this.onSelect(raceId) },
            text.where,
          )
        : h('span', { class: 'where' }, text.where),
      h('span', { class: 'what' }, summaryLine(text)),
    );
  }

  /** Drops the oldest items (the bottom ones) beyond the cap. */
  private trim(): void {
    while (this.list.children.length > MAX_ITEMS) {
      const last = this.list.lastElementChild as HTMLElement;
      this.seen.delete(last.dataset.id ?? '');
      last.remove();
    }
  }
}
