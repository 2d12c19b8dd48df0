/**
 * The claim pass and the wake times on Redis. Each endpoint's due heads, claims and cap live under its own
 * hash tag, so a pass reads every endpoint's first due heads in one pipeline of bounded reads (no script
 * reads a set shared by every endpoint), picks the earliest `limit` across them within each endpoint's room
 * under its cap, and claims them endpoint by endpoint, each one atomic script that checks again.
 *
 * Fencing, in two steps: the shared mark (the lease's token counter, raised on every acquisition) is checked
 * first, and each endpoint keeps a mark of its own that its claim script checks and raises atomically. A
 * node whose lease was taken over is refused by the shared check from the new term's acquisition on, and by
 * an endpoint's check from the new term's first claim there on, even if it read the shared mark just before.
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import type { ClaimedDelivery, ClaimOptions } from '../ports.js';
import { byEndpoint } from './by-endpoint.js';
import { deliveryFromJson } from './hashes.js';
import { endpointIds } from './history.js';
import { type OutboxKeys, type OutboxScriptRunner, onEndpoint, pipelineValues } from './keys.js';
import { claimScript, raiseFenceScript } from './scripts.js';

interface Head {
  ep: string;
  id: string;
  at: number;
}

/** Up to `limit` due heads in claim order (due time, then id), each endpoint held to its room. */
async function dueHeads(redis: Redis, keys: OutboxKeys, at: number, limit: number, o: ClaimOptions) {
  const eps = await endpointIds(redis, keys);
  const p = redis.pipeline();
  for (const ep of eps) {
    const k = keys.endpoint(ep);
    p.hmget(k.endpoint, 'kind', 'in_flight', 'enabled', 'paused_until');
    p.zrangebyscore(k.due, '-inf', at, 'WITHSCORES', 'LIMIT', 0, limit);
  }
  const replies = await pipelineValues('due heads', p);
  const room = new Map<string, number>();
  const heads: Head[] = [];
  eps.forEach((ep, i) => {
    const [kind, inFlight, enabled, pausedUntil] = replies[2 * i] as (string | null)[];
    if (!kind || enabled !== '1' || Number(pausedUntil ?? 0) > at) return;
    room.set(ep, (kind === 'standard' ? o.perEndpoint : 1) - Number(inFlight ?? 0));
    const due = replies[2 * i + 1] as string[];
    for (let j = 0; j < due.length; j += 2) heads.push({ ep, id: due[j]!, at: Number(due[j + 1]) });
  });
  heads.sort((a, b) => a.at - b.at || Number(a.id) - Number(b.id));
  return heads
    .filter((h) => {
      const left = room.get(h.ep) ?? 0;
      room.set(h.ep, left - 1);
      return left > 0;
    })
    .slice(0, limit);
}

export async function claimDue(
  redis: Redis,
  keys: OutboxKeys,
  run: OutboxScriptRunner,
  fenceKey: string,
  at: number,
  limit: number,
  o: ClaimOptions,
): Promise<ClaimedDelivery[] | 'fenced'> {
  if (o.fence !== undefined) {
    const mark = Number((await redisCall('fence mark', () => redis.get(fenceKey))) ?? 0);
    if (o.fence < mark) return 'fenced';
  }
  const heads = await dueHeads(redis, keys, at, limit, o);
  if (heads.length === 0) return [];
  // Claim numbers are a shared counter: one range for the pass, reserved before the endpoints' scripts, each
  // endpoint taking the next part (a head an endpoint's script no longer finds due leaves a gap).
  let next =
    (await redisCall('reserve claim numbers', () => redis.incrby(keys.claims, heads.length))) -
    heads.length +
    1;
  const claimed: ClaimedDelivery[] = [];
  for (const [ep, mine] of byEndpoint(heads, (h) => h.ep)) {
    const args = [at, at + o.chatMinIntervalMs, o.perEndpoint, o.fence ?? '', next, ...mine.map((h) => h.id)];
    next += mine.length;
    const [status, ...triples] = (await onEndpoint(run, keys, ep)(
      'claim due deliveries',
      claimScript,
      args,
    )) as string[];
    if (status === 'fenced') return 'fenced';
    for (let i = 0; i < triples.length; i += 3) {
      const d = deliveryFromJson(triples[i + 2]);
      if (d) claimed.push({ ...d, claim: Number(triples[i + 1]), fence: o.fence ?? null });
    }
  }
  if (o.fence !== undefined && claimed.length > 0)
    await run('raise the fence mark', raiseFenceScript, [fenceKey], [o.fence]);
  const order = new Map(heads.map((h, i) => [h.id, i]));
  return claimed.sort((a, b) => order.get(String(a.id))! - order.get(String(b.id))!);
}

/** When the earliest head is due (its endpoint enabled, after its pause) and the oldest claim was made. */
export async function wakeTimes(redis: Redis, keys: OutboxKeys) {
  const eps = await endpointIds(redis, keys);
  const p = redis.pipeline();
  for (const ep of eps) {
    const k = keys.endpoint(ep);
    p.hmget(k.endpoint, 'enabled', 'paused_until');
    p.zrange(k.due, 0, 0, 'WITHSCORES');
    p.zrange(k.claimed, 0, 0, 'WITHSCORES');
  }
  const replies = await pipelineValues('wake times', p);
  let nextDueAt: number | null = null;
  let oldestClaimAt: number | null = null;
  const earlier = (a: number | null, b: number) => (a === null || b < a ? b : a);
  eps.forEach((_, i) => {
    const [enabled, pausedUntil] = replies[3 * i] as (string | null)[];
    const [, due] = replies[3 * i + 1] as string[];
    const [, claim] = replies[3 * i + 2] as string[];
    if (enabled === '1' && due !== undefined)
      nextDueAt = earlier(nextDueAt, Math.max(Number(due), Number(pausedUntil ?? 0)));
    if (claim !== undefined) oldestClaimAt = earlier(oldestClaimAt, Number(claim));
  });
  return { nextDueAt, oldestClaimAt };
}
