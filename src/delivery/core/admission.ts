/**
 * Per-key limits shared by every transport: open connections, channels over all connections, and the
 * message rate (a token bucket on the wall clock; an SSE request costs one token per channel, as the
 * WebSocket subscribe messages it replaces would). Anonymous principals are named by their address, so
 * their limits are per address.
 */
import type { Clock } from '../../clock.js';
import { type Principal, TokenBucket } from './auth.js';
import type { DeliveryLimits } from './limits.js';

export type RefusalCode = 'too_many_connections' | 'too_many_subscriptions' | 'rate_limited';

export interface Refusal {
  ok: false;
  code: RefusalCode;
  message: string;
}

interface Slot {
  connections: number;
  subscriptions: number;
  bucket: TokenBucket;
}

type Limits = Pick<
  DeliveryLimits,
  'maxConnectionsPerKey' | 'maxSubscriptionsPerKey' | 'messagesPerSecond' | 'messageBurst'
>;

export class Admission {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly limits: Limits,
    private readonly wall: Clock,
  ) {}

  private slot(principal: Principal): Slot {
    let s = this.slots.get(principal.name);
    if (!s) {
      s = {
        connections: 0,
        subscriptions: 0,
        bucket: new TokenBucket(this.limits.messagesPerSecond, this.limits.messageBurst, this.wall.now),
      };
      this.slots.set(principal.name, s);
    }
    return s;
  }

  /** Admits one more connection, paying `tokens` of the message rate. */
  connect(principal: Principal, tokens: number): { ok: true } | Refusal {
    const s = this.slot(principal);
    if (s.connections >= this.limits.maxConnectionsPerKey)
      return refuse(
        'too_many_connections',
        `at most ${this.limits.maxConnectionsPerKey} connections per key`,
      );
    if (tokens > 0 && !s.bucket.take(tokens)) return refuse('rate_limited', 'too many requests; slow down');
    s.connections++;
    return { ok: true };
  }

  disconnect(principal: Principal, subscriptions: number): void {
    const s = this.slots.get(principal.name);
    if (!s) return;
    s.connections--;
    s.subscriptions -= subscriptions;
  }

  /** Forgets keys without connections (called every heartbeat, so a reconnecting key keeps its bucket a while). */
  prune(): void {
    for (const [name, s] of this.slots) if (s.connections <= 0) this.slots.delete(name);
  }

  /** One client message. */
  take(principal: Principal): boolean {
    return this.slot(principal).bucket.take();
  }

  /** Counts `n` more channels for the key, or refuses them all. */
  subscribe(principal: Principal, n: number): { ok: true } | Refusal {
    const s = this.slot(principal);
    if (s.subscriptions + n > this.limits.maxSubscriptionsPerKey)
      return refuse(
        'too_many_subscriptions',
        `at most ${this.limits.maxSubscriptionsPerKey} channels per key`,
      );
    s.subscriptions += n;
    return { ok: true };
  }

  unsubscribe(principal: Principal, n: number): void {
    const s = this.slots.get(principal.name);
    if (s) s.subscriptions -= n;
  }
}

const refuse = (code: RefusalCode, message: string): Refusal => ({ ok: false, code, message });
