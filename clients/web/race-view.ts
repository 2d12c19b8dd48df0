/**
 * The race panel: runners with their prices, results with margins, dividends. Rows are keyed by entrant and
 * updated in place, so a price that moves flashes once without the rest of the table being rebuilt. Once the
 * race is Final, results and dividends come first (what a punter opens it for) and prices no longer flash.
 */
import { formatDividendLine } from '@racewire/client/dividends';
import { localTime, utcTime } from './board-day.js';
import { fill, h } from './dom.js';
import { MARKETS, type Market, type Move, oddsMoves, type RaceModel, riderLabel } from './race-model.js';
import { jumpLabel } from './server-clock.js';

const MARKET_LABEL: Record<Market, string> = {
  fixed_win: 'Win',
  fixed_place: 'Place',
  pool_win: 'Tote W',
  pool_place: 'Tote P',
};

const price = (v: number | null) => (v === null ? '–' : v.toFixed(2));

const isOpen = (status: string | undefined) => status === 'Open' || status === 'Upcoming';

/** `7 of 8 running` while the field can still change; once the race is closed, who started. */
export function fieldSize(m: Pick<RaceModel, 'status' | 'runners'>): string {
  const starters = m.runners.filter((r) => !r.scratched).length;
  const scratched = m.runners.length - starters;
  if (isOpen(m.status)) return `${starters} of ${m.runners.length} running`;
  return `${starters} starters${scratched ? `, ${scratched} scratched` : ''}`;
}

export const statusClass = (status: string) => `status status-${status.toLowerCase().replace(/[^a-z]/g, '')}`;

interface RowCells {
  row: HTMLTableRowElement;
  odds: Record<Market, HTMLTableCellElement>;
  /** The barrier folded into the runner cell, shown on a phone in place of the barrier column. */
  barrier: HTMLSpanElement;
}

export class RaceView {
  private model: RaceModel | undefined;
  private rows = new Map<string, RowCells>();
  private rowKey = '';

  /** `timeZone`: the viewer's, in which times are shown (UTC on hover). */
  constructor(
    private readonly root: HTMLElement,
    private readonly timeZone: string,
  ) {}

  get raceId(): string | undefined {
    return this.model?.raceId;
  }

  /** Shown while the race's first snapshot is on its way (or the race was never fetched). */
  waiting(title: string, detail: string): void {
    this.model = undefined;
    this.rows.clear();
    this.rowKey = '';
    fill(
      this.root,
      h('div', { class: 'race-head' }, h('h2', { 'data-testid': 'race-title' }, title)),
      h('p', { class: 'muted', 'data-testid': 'race-waiting' }, detail),
    );
  }

  update(next: RaceModel): void {
    const moves = oddsMoves(this.model, next);
    const key = `${next.raceId}|${next.code}|${next.runners.map((r) => r.entrantId).join(',')}`;
    if (key !== this.rowKey) this.build(next);
    this.model = next;
    this.rowKey = key;
    this.renderHead(next);
    // After Final a price is history: no flash, and no ▲/▼ left over from the last move.
    const final = next.status === 'Final';
    for (const runner of next.runners) {
      const cells = this.rows.get(runner.entrantId);
      if (!cells) continue;
      cells.row.classList.toggle('scratched', runner.scratched);
      cells.row.classList.toggle('favourite', runner.favourite && !runner.scratched);
      cells.row.dataset.scratched = String(runner.scratched);
      cells.barrier.textContent = runner.barrier === null ? '' : `Barrier ${runner.barrier}`;
      for (const market of MARKETS) {
        const cell = cells.odds[market];
        cell.textContent = runner.scratched ? '–' : price(runner.odds[market]);
        const move = moves.get(`${runner.entrantId}/${market}`);
        if (final) cell.classList.remove('flash-up', 'flash-down');
        else if (move) flash(cell, move);
      }
    }
    this.renderResults(next);
  }

  /** Updates the countdown to the jump; `serverNow` is the server's (possibly accelerated) time. */
  tick(serverNow: number | undefined): void {
    const el = this.root.querySelector<HTMLElement>('[data-testid="countdown"]');
    const start = this.model?.advertisedStart;
    if (!el || start === null || start === undefined || serverNow === undefined) return;
    const left = start - serverNow;
    // After the jump the countdown means nothing: the status badge says what is happening. An open race past
    // its advertised start is late, and says by how much.
    const open = isOpen(this.model?.status);
    const label = jumpLabel(left);
    el.textContent = open ? label.text : '';
    el.title = open
      ? label.late
        ? 'past the advertised start, not yet jumped (server clock)'
        : 'to the advertised start (server clock)'
      : '';
    el.dataset.late = String(open && label.late);
    el.classList.toggle('soon', open && !label.late && left < 5 * 60_000);
    el.classList.toggle('late', open && label.late);
  }

  private build(model: RaceModel): void {
    this.rows.clear();
    const tbody = h('tbody');
    for (const r of model.runners) {
      const odds = {} as Record<Market, HTMLTableCellElement>;
      for (const m of MARKETS) odds[m] = h('td', { class: `num odds ${m}`, 'data-market': m });
      const barrier = h('span', { class: 'sub fold-barrier', 'data-testid': 'runner-barrier' });
      const row = h(
        'tr',
        { 'data-testid': 'runner', 'data-entrant-id': r.entrantId },
        h('td', { class: 'num no' }, r.number ?? ''),
        h(
          'td',
          { class: 'name' },
          r.silk
            ? h('img', {
                class: 'silk',
                src: r.silk,
                alt: '',
                loading: 'lazy',
                width: 24,
                height: 24,
                // Silks come from the racing API's CDN; a broken image icon says less than none.
                onerror: (ev: Event) => (ev.target as HTMLElement).remove(),
              })
            : null,
          h('span', { class: 'runner-name', 'data-testid': 'runner-name' }, r.name),
          h('span', { class: 'sub' }, r.rider ?? ''),
          barrier,
          model.code !== 'G' && r.trainer ? h('span', { class: 'sub trainer' }, `T: ${r.trainer}`) : null,
        ),
        h('td', { class: 'num barrier' }, r.barrier ?? ''),
        h('td', { class: 'rider' }, r.rider ?? '–'),
        ...MARKETS.map((m) => odds[m]),
      );
      this.rows.set(r.entrantId, { row, odds, barrier });
      tbody.append(row);
    }
    fill(
      this.root,
      h('div', { class: 'race-head', 'data-testid': 'race-head' }),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'runners', 'data-testid': 'runners' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { class: 'num' }, '#'),
              h('th', {}, 'Runner'),
              h('th', { class: 'num barrier' }, 'Bar'),
              h('th', { class: 'rider' }, riderLabel(model.code)),
              ...MARKETS.map((m) => h('th', { class: `num odds ${m}` }, MARKET_LABEL[m])),
            ),
          ),
          tbody,
        ),
      ),
      h('section', { class: 'results-wrap', 'data-testid': 'results-panel' }),
    );
  }

  private renderHead(m: RaceModel): void {
    const head = this.root.querySelector('[data-testid="race-head"]');
    if (!head) return;
    const facts = [m.distance ? `${m.distance} m` : null, m.trackCondition, fieldSize(m)].filter(Boolean);
    const old = head.querySelector('[data-testid="countdown"]');
    fill(
      head,
      h(
        'div',
        { class: 'race-title' },
        h('span', { class: 'race-no' }, m.number === null ? 'R?' : `R${m.number}`),
        h(
          'div',
          {},
          h('h2', { 'data-testid': 'race-title' }, m.meeting),
          h('div', { class: 'race-name' }, m.name),
        ),
      ),
      h(
        'div',
        { class: 'race-meta' },
        h('span', { class: statusClass(m.status), 'data-testid': 'race-status' }, m.status),
        m.advertisedStart === null
          ? null
          : h(
              'time',
              {
                class: 'start mono',
                'data-testid': 'race-start',
                datetime: new Date(m.advertisedStart).toISOString(),
                title: utcTime(m.advertisedStart),
              },
              localTime(m.advertisedStart, this.timeZone),
            ),
        h('span', { class: 'countdown', 'data-testid': 'countdown' }, old?.textContent ?? ''),
        h('span', { class: 'muted facts' }, facts.join(' · ')),
      ),
    );
  }

  private renderResults(m: RaceModel): void {
    const panel = this.root.querySelector('[data-testid="results-panel"]');
    const table = this.root.querySelector('.table-wrap');
    if (!panel || !table) return;
    // Final: the result is the news, above the field (on a phone, no scroll past 15 runners to find it).
    const final = m.status === 'Final';
    if (final) table.before(panel);
    else table.after(panel);
    panel.classList.toggle('first', final);
    if (m.results.length === 0 && m.dividends.length === 0) {
      fill(panel);
      return;
    }
    fill(
      panel,
      h(
        'div',
        { class: 'card results', 'data-testid': 'results' },
        h(
          'h3',
          {},
          'Results ',
          h('span', { class: `tag ${final ? 'final' : 'interim'}` }, final ? 'Final' : m.status),
        ),
        h(
          'ol',
          {},
          ...m.results.map((r) =>
            h(
              'li',
              { 'data-testid': 'result', 'data-entrant-id': r.entrantId, 'data-position': r.position },
              h('span', { class: `place p${r.position}` }, r.position),
              h('span', { class: 'no' }, r.number ?? ''),
              h('span', { class: 'runner-name' }, r.name),
              h('span', { class: 'margin' }, r.margin ?? ''),
            ),
          ),
        ),
      ),
      m.dividends.length
        ? h(
            'div',
            { class: 'card dividends', 'data-testid': 'dividends' },
            h('h3', {}, 'Dividends'),
            h(
              'ul',
              { class: 'dividend-lines' },
              ...m.dividends.map((d) =>
                h(
                  'li',
                  { 'data-testid': 'dividend', 'data-status': d.status, 'data-pool': d.label },
                  h('span', { class: 'dividend-line' }, formatDividendLine(d)),
                  h('span', { class: `tag ${d.status === 'Final' ? 'final' : 'interim'}` }, d.status),
                ),
              ),
            ),
          )
        : null,
    );
  }
}

/** Restarts the cell's flash animation (a reflow between removing and adding the class restarts it). */
function flash(cell: HTMLElement, move: Move): void {
  cell.classList.remove('flash-up', 'flash-down');
  void cell.offsetWidth;
  cell.classList.add(move === 'up' ? 'flash-up' : 'flash-down');
}
