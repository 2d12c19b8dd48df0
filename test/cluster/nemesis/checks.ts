/** The nemesis's invariants over what it recorded, as pure functions (run.ts gathers the data). */
import type { StreamMessage } from '../ws-recorder.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Segment {
  epoch: string;
  /** The seq the segment started from (its snapshot's or its resume's). */
  from: number;
  seqs: number[];
  eventIds: string[];
}

/**
 * A subscriber's messages split at each snapshot or resume: within a segment the seqs must follow each other
 * with no gap and no repeat. A snapshot after the first is a resync (documented: an epoch change or a hole the
 * log no longer holds), so it starts a new segment.
 */
export function segmentsOf(messages: readonly StreamMessage[]): Segment[] {
  const out: Segment[] = [];
  for (const m of messages) {
    if (m.type === 'snapshot' || m.type === 'resumed') {
      out.push({ epoch: m.epoch ?? '', from: m.seq ?? 0, seqs: [], eventIds: [] });
      continue;
    }
    const current = out.at(-1);
    if (!current || m.seq === undefined || (m.type !== 'patch' && m.type !== 'event')) continue;
    current.seqs.push(m.seq);
    if (m.type === 'event' && m.event) current.eventIds.push(m.event.id);
  }
  return out;
}

/** The first place a segment skips or repeats a seq, or undefined when it never does. */
export function gapIn(segment: Segment): string | undefined {
  let expected = segment.from + 1;
  for (const seq of segment.seqs) {
    if (seq !== expected) return `expected seq ${expected} after ${expected - 1}, got ${seq}`;
    expected++;
  }
  return undefined;
}

/**
 * The most requests in any 60 s window that contains none of `excluded` (instants when the shared window was
 * lost with Redis's data: the budget then holds per node only), and how many windows were left out.
 */
export function peakPerMinute(
  times: readonly number[],
  excluded: readonly number[],
): { peak: number; skipped: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let skipped = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    const end = sorted[i]!;
    while (sorted[j]! <= end - 60_000) j++;
    if (excluded.some((w) => w > end - 60_000 && w <= end)) {
      skipped++;
      continue;
    }
    peak = Math.max(peak, i - j + 1);
  }
  return { peak, skipped };
}

/** Webhook-ids received with more than one body: a consumer deduping by webhook-id would drop the later. */
export function reusedIds(received: ReadonlyArray<{ id: string; body: string }>): string[] {
  const bodies = new Map<string, string>();
  const reused = new Set<string>();
  for (const r of received) {
    const seen = bodies.get(r.id);
    if (seen === undefined) bodies.set(r.id, r.body);
    else if (seen !== r.body) reused.add(r.id);
  }
  return [...reused];
}

/** A fault after which a node without the documents leads: the races near their jump at that instant. */
export interface Takeover {
  label: string;
  at: number;
  nearJump: readonly string[];
}

/** The race a racing API path fetches (`/events/<id>` or `/races/<id>`), or undefined for any other. */
export const raceOfPath = (path: string): string | undefined =>
  /^\/(?:events|races)\/([^/]+)$/.exec(path)?.[1];

/**
 * For one takeover, how many upstream requests (of every node, from its instant on) each of its near-jump
 * races waited for its first fetch: its position in that sequence, or undefined when it never came. Counted
 * in requests, not seconds: the simulator stamps arrivals on the nemesis's event loop, which stalled 9-14 s
 * at load ~20, while the order of the requests is exact whatever the load.
 */
export function requestsUntilFetched(
  takeover: Takeover,
  calls: ReadonlyArray<{ path: string; at: number }>,
): Map<string, number | undefined> {
  const waited = new Map<string, number | undefined>(takeover.nearJump.map((id) => [id, undefined]));
  let position = 0;
  for (const call of calls) {
    if (call.at < takeover.at) continue;
    position++;
    const race = raceOfPath(call.path);
    if (race !== undefined && waited.has(race) && waited.get(race) === undefined) waited.set(race, position);
  }
  return waited;
}

/**
 * The takeover-starvation judgement (issue 27): after every takeover, every race near its jump fetched
 * within `limit` upstream requests. Returns the late races (`label race: position`) and the worst position.
 */
export function starvedRaces(
  takeovers: readonly Takeover[],
  calls: ReadonlyArray<{ path: string; at: number }>,
  limit: number,
): { late: string[]; worst: number; judged: number } {
  const late: string[] = [];
  let worst = 0;
  let judged = 0;
  for (const t of takeovers) {
    for (const [race, position] of requestsUntilFetched(t, calls)) {
      judged++;
      if (position !== undefined) worst = Math.max(worst, position);
      if (position === undefined || position > limit) late.push(`${t.label} ${race}: ${position ?? 'never'}`);
    }
  }
  return { late, worst, judged };
}

/**
 * What the first `count` upstream requests from `at` on went to: discovery (`/meetings...`), the races of
 * each named group, or other races. Says where the budget went when a race near its jump waited too long.
 */
export function requestMix(
  calls: ReadonlyArray<{ path: string; at: number }>,
  at: number,
  count: number,
  groups: Readonly<Record<string, ReadonlySet<string>>>,
): Record<string, number> {
  const mix: Record<string, number> = { discovery: 0, other: 0 };
  for (const name of Object.keys(groups)) mix[name] = 0;
  for (const call of calls.filter((c) => c.at >= at).slice(0, count)) {
    const group = groupOf(call.path, groups);
    mix[group] = (mix[group] ?? 0) + 1;
  }
  return mix;
}

/** The group a request falls in: discovery (`/meetings...`), the named group holding its race, or other. */
function groupOf(path: string, groups: Readonly<Record<string, ReadonlySet<string>>>): string {
  const race = raceOfPath(path);
  if (race === undefined) return path.startsWith('/meetings') ? 'discovery' : 'other';
  return Object.keys(groups).find((name) => groups[name]!.has(race)) ?? 'other';
}

/**
 * The first `count` upstream requests from `at` on, one line each (ms after `at`, group, path): the order in
 * which a takeover spent its budget, printed by `NEMESIS_TRACE=1` to find why a race near its jump waited.
 */
export function requestTrace(
  calls: ReadonlyArray<{ path: string; query?: string; from?: string; at: number }>,
  at: number,
  count: number,
  groups: Readonly<Record<string, ReadonlySet<string>>>,
): string[] {
  return calls
    .filter((c) => c.at >= at)
    .slice(0, count)
    .map(
      (c, i) =>
        `${String(i + 1).padStart(3)} +${c.at - at}ms ${c.from || '?'} ${groupOf(c.path, groups)} ${c.path}${dateOf(c.query)}`,
    );
}

/** A /meetings query's day (` 2026-11-27 offset 0`), or nothing for any other. */
const dateOf = (query = '') => {
  const params = new URLSearchParams(query);
  const date = params.get('date_from');
  return date ? ` ${date} offset ${params.get('offset') ?? 0}` : '';
};

/**
 * Outbox claim passes the nodes logged as fenced (`webhook claim fenced`, src/delivery/webhooks/dispatch/
 * dispatcher.ts). A claim is fenced in two steps (docs/webhooks.md): the pass reads Redis's mark and claims
 * nothing when its token is below it, before any script; the fence audit sees only the script's step. A
 * resumed leader's first write is such a pass (its dispatcher's overdue timer fires before any fetch comes
 * back), and it ends the term: so the pause alone never reached the scripts, and the check counted as
 * exercised only the stale writes of a wipe's token races, which fewer hand-overs after a wipe made rare:
 * seed 261368 on `79c66ff` said "not exercised" though its resumed leader logged its pass fenced (every
 * traced pause did), and two more seeds of the next four on `d12c363` said it too.
 */
export function fencedClaimPasses(outputs: readonly string[]): number {
  let passes = 0;
  for (const output of outputs) {
    for (const line of output.split('\n')) {
      if (!line.includes('webhook claim fenced')) continue;
      try {
        if ((JSON.parse(line) as { msg?: string }).msg?.startsWith('webhook claim fenced')) passes++;
      } catch {
        // Not a log line of the node's: a partial write at the end of its output.
      }
    }
  }
  return passes;
}
