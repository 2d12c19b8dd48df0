/**
 * Snapshot documents, read and serialised off the hot path and shared: each stream's document is read from
 * the log once per version and serialised once per variant (audience and projection), in a queue of its own,
 * so a subscription storm costs one read per stream instead of one per subscriber and never holds up the
 * live path. Serialised documents are cached in a byte-bounded LRU. The node's view of each stream's head
 * is kept current from the bus: an event moves it along, anything else makes the next attach read again.
 * That view goes with a stream's activity: a stream neither written nor read for STREAM_IDLE_MS of wall time
 * is forgotten (a race's stream is quiet once it settles), as is the least recently seen beyond MAX_STREAMS.
 */
import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import type { Clock } from '../../clock.js';
import { idleCacheOptions } from '../../clock-cache.js';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import type { EventLog } from '../../store/ports.js';
import type { Scope } from './auth.js';
import { documentFor } from './entry-messages.js';
import { type StreamOptions, variantKey } from './stream-options.js';

export interface HeadPosition {
  epoch: string;
  seq: number;
  documentSeq: number;
}

export interface Snapshot {
  head: HeadPosition;
  /** The document as the variant sees it, serialised. */
  document: Buffer;
}

/** Live entries may carry their stream's epoch (a distributed log does); the core honours it when present. */
export const epochOf = (entry: LogEntry): string | undefined => entry.epoch;

/** A hard bound: a race day brings about 1,700 streams (the Redis soak), most of them quiet within hours. */
const MAX_STREAMS = 20_000;

/**
 * A stream neither written nor read this long (wall time) is forgotten. Without it the view filled only with
 * MAX_STREAMS, about twelve race days: the Redis soak's heap after GC rose through its week.
 */
export const STREAM_IDLE_MS = 6 * 3_600_000;

/** Idle streams are swept at most this often (wall time), on the bus's next delivery. */
const SWEEP_EVERY_MS = 60_000;

export class SnapshotSource {
  private readonly heads: LRUCache<StreamId, HeadPosition>;
  private readonly seen: LRUCache<StreamId, { seq: number; epoch?: string }>;
  private readonly docs: LRUCache<string, Buffer>;
  private readonly inflight = new Map<string, Promise<Snapshot>>();
  private readonly queue = new PQueue({ concurrency: 2 });
  private nextSweep: number;

  constructor(
    private readonly log: EventLog,
    maxBytes: number,
    private readonly wall: Clock,
  ) {
    this.docs = new LRUCache<string, Buffer>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (b) => Math.max(1, b.length),
    });
    // Every read renews an entry: a stream a subscriber's heartbeat still asks about is not idle.
    const byActivity = idleCacheOptions(wall, MAX_STREAMS, STREAM_IDLE_MS);
    this.heads = new LRUCache(byActivity);
    this.seen = new LRUCache(byActivity);
    this.nextSweep = wall.now() + SWEEP_EVERY_MS;
  }

  /** Entries the bus delivered (one stream, seq order). */
  observe(entries: readonly LogEntry[]): void {
    const last = entries.at(-1);
    if (!last) return;
    this.sweepIdle();
    const stream = last.stream;
    const prev = this.seen.get(stream);
    const epoch = epochOf(last) ?? prev?.epoch;
    if (!prev || last.seq > prev.seq || epoch !== prev.epoch) this.seen.set(stream, { seq: last.seq, epoch });
    const h = this.heads.get(stream);
    if (!h) return;
    for (const e of entries) {
      const ep = epochOf(e);
      if (ep !== undefined && ep !== h.epoch) return void this.heads.delete(stream);
      if (e.seq <= h.seq) continue;
      if (e.kind === 'event' && e.seq === h.seq + 1) h.seq = e.seq;
      else return void this.heads.delete(stream);
    }
  }

  /** The highest seq this node has seen of a stream, and its epoch when entries carry it. */
  latest(stream: StreamId): { seq: number; epoch?: string } | undefined {
    return this.seen.get(stream);
  }

  /** Forgets the head of a stream, and the seq seen of it (it was found out of date: the log was reset). */
  invalidate(stream: StreamId): void {
    this.heads.delete(stream);
    this.seen.delete(stream);
  }

  get(stream: StreamId, scope: Scope, options: StreamOptions): Promise<Snapshot> {
    const variant = variantKey(scope, options);
    const hit = this.cached(stream, variant);
    if (hit) return Promise.resolve(hit);
    const key = `${stream}|${variant}`;
    let p = this.inflight.get(key);
    if (!p) {
      p = (this.queue.add(() => this.load(stream, scope, options, variant)) as Promise<Snapshot>).finally(
        () => this.inflight.delete(key),
      );
      this.inflight.set(key, p);
    }
    return p;
  }

  /** Bytes of serialised documents held. */
  bytes(): number {
    return this.docs.calculatedSize;
  }

  private sweepIdle(): void {
    const now = this.wall.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_EVERY_MS;
    this.heads.purgeStale();
    this.seen.purgeStale();
  }

  private cached(stream: StreamId, variant: string): Snapshot | undefined {
    const h = this.heads.get(stream);
    if (!h) return undefined;
    const document = this.docs.get(docKey(stream, h, variant));
    return document ? { head: { ...h }, document } : undefined;
  }

  private async load(stream: StreamId, scope: Scope, options: StreamOptions, variant: string) {
    const hit = this.cached(stream, variant);
    if (hit) return hit;
    const head = await this.log.head(stream);
    const position: HeadPosition = { epoch: head.epoch, seq: head.seq, documentSeq: head.documentSeq };
    // Entries seen after the read started would make this head old news: use it, do not keep it.
    const seen = this.seen.get(stream);
    if (!seen || seen.seq <= head.seq) this.heads.set(stream, { ...position });
    const document = Buffer.from(JSON.stringify(documentFor(head.document ?? null, scope, options)), 'utf8');
    this.docs.set(docKey(stream, position, variant), document);
    return { head: position, document };
  }
}

const docKey = (stream: StreamId, h: HeadPosition, variant: string) =>
  `${stream}|${h.epoch}|${h.documentSeq}|${variant}`;
