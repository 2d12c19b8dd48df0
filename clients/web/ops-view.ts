/**
 * The operations panel: the upstream budget this minute, races watched, staleness, subscribers, webhooks, and
 * with several nodes which one this is and whether it polls.
 */
import type { Ops } from './api.js';
import { fill, h } from './dom.js';
import { formatStaleness } from './server-clock.js';

const stat = (label: string, value: string | number, testId: string, tone = '') =>
  h(
    'div',
    { class: `stat ${tone}`, 'data-testid': testId },
    h('span', { class: 'stat-value' }, value),
    h('span', { class: 'stat-label' }, label),
  );

/** Staleness of races still to settle (the server lists only those: settled races are no longer polled). */
export function liveStaleness(staleMs: Record<string, number>): {
  worst: number | null;
  median: number | null;
} {
  const values = Object.values(staleMs)
    .filter((v) => typeof v === 'number')
    .sort((a, b) => a - b);
  if (values.length === 0) return { worst: null, median: null };
  return { worst: values[values.length - 1]!, median: values[Math.floor(values.length / 2)]! };
}

export function renderOps(root: HTMLElement, ops: Ops | undefined, selected: string | undefined): void {
  if (!ops) {
    fill(root, h('p', { class: 'muted' }, 'Waiting for /v1/ops…'));
    return;
  }
  const { budget } = ops;
  const usedPct = budget.maxPerMinute > 0 ? Math.min(100, (budget.used / budget.maxPerMinute) * 100) : 0;
  const stale = liveStaleness(ops.staleMs);
  const selectedStale = selected === undefined ? undefined : (ops.staleMs[selected] ?? null);
  const hooks = ops.webhooks;
  fill(
    root,
    h(
      'div',
      { class: 'budget', 'data-testid': 'ops-budget' },
      h(
        'div',
        { class: 'budget-head' },
        h('span', {}, 'Upstream budget, last 60 s'),
        h('span', { class: 'mono' }, `${budget.used} / ${budget.maxPerMinute}`),
      ),
      h(
        'div',
        { class: 'bar' },
        h('div', { class: `bar-fill${usedPct > 90 ? ' hot' : ''}`, style: `width:${usedPct.toFixed(1)}%` }),
      ),
      h('div', { class: 'muted small' }, `${budget.left} left · ${budget.queued} queued`),
    ),
    h(
      'div',
      { class: 'stats' },
      stat('races watched', ops.races.watched, 'ops-watched'),
      stat('settled', ops.races.settled, 'ops-settled'),
      stat('this race data age', formatStaleness(selectedStale), 'ops-race-stale'),
      stat(
        'worst live age',
        formatStaleness(stale.worst),
        'ops-worst-stale',
        (stale.worst ?? 0) > 120_000 ? 'warn' : '',
      ),
      stat('subscribers', ops.ws.subscribers, 'ops-subscribers'),
      stat('sockets', ops.ws.connections, 'ops-connections'),
      stat('slow disconnects', ops.ws.slowDisconnects, 'ops-slow', ops.ws.slowDisconnects > 0 ? 'warn' : ''),
      stat(
        'webhooks pending / failing',
        `${hooks.pending} / ${hooks.failing}`,
        'ops-webhooks',
        hooks.failing > 0 ? 'warn' : '',
      ),
      ...(ops.cluster
        ? [
            stat(
              ops.cluster.leader ? 'node (polls)' : 'node (follows)',
              ops.cluster.node,
              'ops-node',
              ops.cluster.redisUp ? '' : 'warn',
            ),
          ]
        : []),
    ),
  );
}
