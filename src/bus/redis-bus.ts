/**
 * Bus across nodes over Redis pub/sub. Like the memory bus, a publish reaches local listeners synchronously;
 * it is also published to Redis tagged with this node's id, and each node delivers what other nodes publish
 * and ignores its own echo (as socket.io's redis adapter does). Pub/sub is at-most-once: a node that misses
 * a batch (disconnected) catches up from the shared event log, where positions are the same on every node.
 */
import type { Redis } from 'ioredis';
import type { LogEntry } from '../events/envelope.js';
import type { Bus, EntriesListener } from './bus.js';

export interface RedisBusOptions {
  /** Publishing client (the caller's). */
  pub: Redis;
  /**
   * Subscribing client (the caller's, dedicated: a subscribed connection can do nothing else). The bus owns
   * its subscription: it turns ioredis's autoResubscribe off and subscribes on every 'ready' itself.
   */
  sub: Redis;
  /** @default 'racewire:entries' */
  channel?: string;
  /** Unique per process. */
  nodeId: string;
  /** A throwing listener, a failed publish or a malformed message from Redis. Delivery goes on. */
  onError?: (err: unknown) => void;
}

export interface RedisBus extends Bus {
  /**
   * Resolves once the subscription is first active (it never rejects: the bus subscribes again on every
   * reconnection); before that, other nodes' batches are not received.
   */
  readonly ready: Promise<void>;
  /** Unsubscribes; the clients stay open (they are the caller's). */
  close(): Promise<void>;
}

/** What travels on the channel. */
interface Envelope {
  node: string;
  entries: LogEntry[];
}

function parseEnvelope(text: string): Envelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { node, entries } = value as Record<string, unknown>;
  if (typeof node !== 'string' || !Array.isArray(entries)) return undefined;
  const wellFormed = entries.every(
    (e) =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as Record<string, unknown>).stream === 'string' &&
      Number.isSafeInteger((e as Record<string, unknown>).seq) &&
      ['snapshot', 'patch', 'event'].includes((e as Record<string, unknown>).kind as string),
  );
  return wellFormed ? { node, entries: entries as LogEntry[] } : undefined;
}

export class BusMessageError extends Error {
  readonly code = 'bad_bus_message';

  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

export function createRedisBus(opts: RedisBusOptions): RedisBus {
  const { pub, sub, nodeId } = opts;
  const channel = opts.channel ?? 'racewire:entries';
  const onError = opts.onError ?? (() => {});
  const listeners = new Set<EntriesListener>();

  const deliver = (entries: LogEntry[]) => {
    for (const listener of listeners) {
      try {
        listener(entries);
      } catch (err) {
        onError(err);
      }
    }
  };

  const onMessage = (from: string, text: string) => {
    if (from !== channel) return;
    const envelope = parseEnvelope(text);
    if (!envelope) return onError(new BusMessageError(`malformed message on ${channel}`));
    if (envelope.node === nodeId || envelope.entries.length === 0) return;
    deliver(envelope.entries);
  };
  sub.on('message', onMessage);
  // The bus subscribes again itself on every (re)connection: ioredis's own resubscribe sends SUBSCRIBE with
  // no rejection handler (ioredis#2187), so a reconnection that fails at that moment rejected unhandled.
  sub.options.autoResubscribe = false;
  let subscribed: () => void;
  const ready = new Promise<void>((resolve) => {
    subscribed = resolve;
  });
  let closed = false;
  const subscribe = () => {
    if (closed) return;
    // A failure here is retried on the next 'ready': ioredis reconnects on its own schedule.
    sub.subscribe(channel).then(() => subscribed(), onError);
  };
  sub.on('ready', subscribe);
  if (sub.status === 'ready') subscribe();

  return {
    ready,
    publish(entries) {
      deliver(entries);
      if (entries.length === 0) return;
      const text = JSON.stringify({ node: nodeId, entries } satisfies Envelope);
      pub.publish(channel, text).catch(onError);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      sub.off('ready', subscribe);
      sub.off('message', onMessage);
      listeners.clear();
      await sub.unsubscribe(channel).catch(onError);
    },
  };
}
