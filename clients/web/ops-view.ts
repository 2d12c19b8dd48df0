/**
 * The operations panel: the upstream budget this minute and what it is for, the memory and disk the process
 * holds, races watched, data ages against what the scheduler intends, subscribers, webhooks, and with several
 * nodes which one this is and whether it polls.
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

/**
 * Whether a race's data is older than the scheduler means it to be: more than twice the interval it intends
 * for the race now (`plannedMs`, which stretches when the budget is spent in full), plus two seconds of wall
 * time for the request itself (counted on the race clock, which runs `speed` times faster).
 */
export function isBehindPlan(ageMs: number, plannedMs: number | undefined, speed: number): boolean {
  return plannedMs !== undefined && ageMs > 2 * plannedMs + 2_000 * speed;
}

/** Races still to settle whose data is behind the plan, of those with data. */
export function behindPlan(ops: Pick<Ops, 'staleMs' | 'plannedMs' | 'clockSpeed'>): {
  behind: number;
  of: number;
} {
  const ages = Object.entries(ops.staleMs).filter(([, ms]) => typeof ms === 'number');
  const behind = ages.filter(([id, ms]) => isBehindPlan(ms, ops.plannedMs?.[id], ops.clockSpeed)).length;
  return { behind, of: ages.length };
}

/** `3s`, `2m`, `1.5h` for an interval (ms). */
const formatInterval = (ms: number) =>
  ms < 60_000 ? `${Math.round(ms / 1000)}s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)}m` : 'hours';

/** What the budget is and where it goes, in words a first-time user can read. */
export function budgetText(ops: Pick<Ops, 'budget' | 'clockSpeed'>): { purpose: string; state: string } {
  const { budget, clockSpeed } = ops;
  const perMinute =
    clockSpeed === 1
      ? `${budget.maxPerMinute} requests a minute`
      : `${budget.maxPerMinute} requests a minute of racewire's clock (×${clockSpeed}: ${Math.round(budget.maxPerMinute * clockSpeed)} a real minute)`;
  const discovery = `about ${Math.round(budget.discoveryPerMinute)} to list the meetings`;
  const nearShare = Math.round(budget.nearJumpShare * 100);
  const state = budget.paused
    ? 'Paused: the racing API answered 429, every request waits.'
    : budget.saturated
      ? `Races ask for more than the budget, by design: the scheduler spends it all, ${nearShare} % of the race requests on the ${budget.nearJump} races near the jump.`
      : 'Spare: every race is fetched as often as its phase needs.';
  return { purpose: `${perMinute}; ${discovery}, the rest for races.`, state };
}

const SLICE_LABELS: Record<string, string> = {
  discovery: 'listing',
  nearJump: 'near the jump',
  postJump: 'after the jump',
  lateScratchings: 'late scratchings',
  earlyScratchings: 'early scratchings',
};

/** One line per slice of the budget: requests a minute planned now / spent in the last minute. */
export function sliceLines(budget: Ops['budget']): { label: string; text: string }[] {
  const { planned, spent } = budget.slices;
  return Object.keys(SLICE_LABELS).map((key) => {
    const plan = (planned as Record<string, number>)[key] ?? 0;
    const used = spent ? (spent as Record<string, number>)[key] : undefined;
    return {
      label: SLICE_LABELS[key]!,
      text: `${Math.round(plan)} planned / ${used === undefined ? '-' : used} spent`,
    };
  });
}

/** Whole mebibytes, as `ps` and `du -m` count them: `182 MB`. */
const mebibytes = (bytes: number) => `${Math.round(bytes / 1_048_576)} MB`;

/**
 * The process's memory (resident, and of it the V8 heap in use) and the database's bytes on disk; a store
 * that keeps nothing in DATA_DIR (memory, Redis) has no disk figure here.
 */
export function usageText(usage: Ops['process']): { memory: string; disk: string } {
  return {
    memory: `${mebibytes(usage.rssBytes)} (heap ${mebibytes(usage.heapUsedBytes)})`,
    disk: usage.dataDirBytes === undefined ? 'none in DATA_DIR' : mebibytes(usage.dataDirBytes),
  };
}

/**
 * The top bar's badge for data that is not the live racing API: simulated (the embedded simulator) or
 * replayed from a recording. None for the racing API.
 */
export function upstreamBadge(
  kind: Ops['upstream'] | undefined,
): { text: string; title: string } | undefined {
  if (kind === 'embedded simulator')
    return { text: 'simulated data', title: 'The embedded simulator is the upstream: no race here is real.' };
  if (kind === 'replay')
    return { text: 'replayed data', title: 'A recording is replayed: real races, not happening now.' };
  return undefined;
}

export function renderOps(root: HTMLElement, ops: Ops | undefined, selected: string | undefined): void {
  if (!ops) {
    fill(root, h('p', { class: 'muted' }, 'Waiting for /v1/ops…'));
    return;
  }
  const { budget } = ops;
  const usedPct = budget.maxPerMinute > 0 ? Math.min(100, (budget.used / budget.maxPerMinute) * 100) : 0;
  const late = behindPlan(ops);
  const selectedStale = selected === undefined ? undefined : (ops.staleMs[selected] ?? null);
  const selectedPlan = selected === undefined ? undefined : ops.plannedMs?.[selected];
  const selectedBehind =
    typeof selectedStale === 'number' && isBehindPlan(selectedStale, selectedPlan, ops.clockSpeed);
  const text = budgetText(ops);
  const hooks = ops.webhooks;
  const usage = usageText(ops.process);
  fill(
    root,
    h(
      'div',
      { class: 'budget', 'data-testid': 'ops-budget', 'data-state': budget.paused ? 'paused' : 'ok' },
      h(
        'div',
        { class: 'budget-head' },
        h('span', {}, 'Upstream budget, last minute'),
        h('span', { class: 'mono' }, `${budget.used} / ${budget.maxPerMinute}`),
      ),
      h(
        'div',
        { class: 'bar' },
        h('div', {
          class: `bar-fill${budget.paused ? ' paused' : ''}`,
          style: `width:${usedPct.toFixed(1)}%`,
        }),
      ),
      h(
        'div',
        { class: `small${budget.paused ? ' warn' : ''}`, 'data-testid': 'ops-budget-state' },
        text.state,
      ),
      h('div', { class: 'muted small', 'data-testid': 'ops-budget-purpose' }, text.purpose),
      h('div', { class: 'muted small' }, `${budget.left} left · ${budget.queued} queued`),
      h(
        'ul',
        { class: 'muted small slices', 'data-testid': 'ops-slices', title: 'requests a minute, by slice' },
        ...sliceLines(budget).map((l) => h('li', {}, `${l.label}: ${l.text}`)),
      ),
    ),
    h(
      'div',
      { class: 'stats' },
      stat('process memory', usage.memory, 'ops-memory'),
      stat('database on disk', usage.disk, 'ops-disk'),
      // Races are watched by racewire (it polls them); people and apps are the subscribers below.
      stat('races watched by racewire', ops.races.watched, 'ops-watched'),
      stat('races settled', ops.races.settled, 'ops-settled'),
      stat(
        'this race: data age / planned',
        `${formatStaleness(selectedStale)} / ${selectedPlan === undefined ? '-' : formatInterval(selectedPlan)}`,
        'ops-race-stale',
        selectedBehind ? 'warn' : '',
      ),
      stat('races behind plan', `${late.behind} of ${late.of}`, 'ops-behind', late.behind > 0 ? 'warn' : ''),
      stat('subscriptions by clients', ops.ws.subscribers, 'ops-subscribers'),
      stat('client sockets', ops.ws.connections, 'ops-connections'),
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
