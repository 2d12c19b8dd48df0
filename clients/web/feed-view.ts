/** The running feed of events from the firehose: newest first, capped, duplicates (by id) dropped. */
import type { RaceEvent } from '@racewire/client';
import { describeEvent } from './describe-event.js';
import { h } from './dom.js';

const MAX_ITEMS = 80;

export class FeedView {
  private readonly seen = new Set<string>();
  private readonly order: string[] = [];
  showOdds = false;

  constructor(
    private readonly list: HTMLElement,
    private readonly onSelect: (raceId: string) => void,
  ) {}

  add(event: RaceEvent): void {
    if (this.seen.has(event.id)) return;
    if (event.type === 'odds.changed' && !this.showOdds) return;
    this.seen.add(event.id);
    this.order.push(event.id);
    const line = describeEvent(event);
    const time = event.timestamp.slice(11, 19);
    const raceId = event.raceId;
    const item = h(
      'li',
      { class: `feed-item tone-${line.tone}`, 'data-testid': 'feed-item', 'data-type': event.type },
      h('time', { class: 'muted', datetime: event.timestamp }, time),
      raceId
        ? h(
            'button',
            { type: 'button', class: 'where link', onclick: () => this.onSelect(raceId) },
            line.where,
          )
        : h('span', { class: 'where' }, line.where),
      h('span', { class: 'what' }, line.what),
    );
    this.list.prepend(item);
    while (this.order.length > MAX_ITEMS) {
      this.seen.delete(this.order.shift()!);
      this.list.lastElementChild?.remove();
    }
  }
}
