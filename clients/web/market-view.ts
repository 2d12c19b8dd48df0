/**
 * The race view's market panel: money share per runner (bars), the latest big bets, and the latest plunges
 * and drifts of the race as they arrive. Shown once the race has market data.
 */
import { fill, h } from './dom.js';
import type { MarketModel, MoveRow } from './market-model.js';

const MOVES_SHOWN = 5;
const dollars = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 0 })}`;

export class MarketView {
  private raceId: string | undefined;
  private model: MarketModel = { shares: null, bets: [] };
  private moves: MoveRow[] = [];

  constructor(private readonly root: HTMLElement) {}

  /** The selected race's latest model; another race clears the moves. */
  update(raceId: string, model: MarketModel): void {
    if (raceId !== this.raceId) this.moves = [];
    this.raceId = raceId;
    this.model = model;
    this.render();
  }

  addMove(raceId: string | undefined, move: MoveRow): void {
    if (raceId !== this.raceId || this.moves.some((m) => m.id === move.id)) return;
    this.moves = [move, ...this.moves].slice(0, MOVES_SHOWN);
    this.render();
  }

  private render(): void {
    const { shares, bets } = this.model;
    if (!shares && bets.length === 0 && this.moves.length === 0) {
      fill(this.root);
      return;
    }
    const top = Math.max(1, ...(shares ?? []).map((s) => s.share));
    fill(
      this.root,
      shares
        ? h(
            'div',
            { class: 'card money', 'data-testid': 'money-shares' },
            h('h3', {}, 'Money share'),
            ...shares.map((s) =>
              h(
                'div',
                { class: 'share', 'data-testid': 'money-share', 'data-entrant-id': s.entrantId },
                h('span', { class: 'no' }, s.number ?? ''),
                h('span', { class: 'share-name' }, s.name),
                h('span', { class: 'bar' }, h('span', { style: `width:${(100 * s.share) / top}%` })),
                h('span', { class: 'num' }, `${s.share}%`),
              ),
            ),
          )
        : null,
      h(
        'div',
        { class: 'card bets', 'data-testid': 'big-bets' },
        h('h3', {}, 'Big bets'),
        bets.length === 0
          ? h('p', { class: 'muted' }, 'None yet.')
          : h(
              'ul',
              {},
              ...bets.map((b) =>
                h(
                  'li',
                  { 'data-testid': 'big-bet' },
                  h('span', { class: 'num stake' }, dollars(b.stake)),
                  ` ${b.product} ${b.runners}`,
                  h('span', { class: 'muted' }, ` ${b.at}`),
                  b.biggest ? h('span', { class: 'tag final' }, 'biggest') : null,
                ),
              ),
            ),
      ),
      this.moves.length
        ? h(
            'div',
            { class: 'card moves', 'data-testid': 'price-moves' },
            h('h3', {}, 'Plunges and drifts'),
            h(
              'ul',
              {},
              ...this.moves.map((m) =>
                h(
                  'li',
                  { 'data-testid': 'price-move', class: m.kind },
                  `${m.kind === 'plunge' ? '↘' : '↗'} ${m.runner} ${m.from.toFixed(2)} → ${m.to.toFixed(2)} `,
                  h('span', { class: 'num' }, `(${m.changePct > 0 ? '+' : ''}${m.changePct.toFixed(1)}%)`),
                ),
              ),
            ),
          )
        : null,
    );
  }
}
