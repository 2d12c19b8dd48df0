/**
 * One subscriber connection, whatever carries its bytes: its principal, channels and per-stream state, and
 * a send queue bounded in bytes. A small batch on a connection with nothing queued is written at once (live
 * traffic: one write, no scheduling); a second batch in the same event-loop turn, a large one, or one behind
 * a queue waits for the scheduler, which writes what queued together. Messages leave in order as the transport
 * drains; attach work (snapshots, replay pages) waits for `writable()`, so a subscription's streams go out one
 * by one and a reader that keeps up receives any number of them. The slow-consumer rule is about time on the
 * wall clock: a connection that owes more than `maxBufferedBytes` for `slowConsumerMs` (or more than
 * `hardBufferedBytes` at all) is slow.
 */
import type { Clock } from '../../clock.js';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import type { Principal, Scope } from './auth.js';
import type { ParsedChannel } from './channels.js';
import type { DeliveryLimits } from './limits.js';
import type { Outgoing } from './outgoing.js';
import type { Sink } from './sink.js';
import type { StreamOptions } from './stream-options.js';
import { currentTurn } from './turn.js';

/** A connection with at most this queued is served every turn (and a batch this small may be written at once). */
export const SMALL_BYTES = 16 * 1024;

export interface StreamState {
  /**
   * `pending`: waiting for its turn to attach (nothing buffered: it starts from the log); `attaching`: history
   * or a snapshot is being read and live entries wait in `buffer`; `live`.
   */
  phase: 'pending' | 'attaching' | 'live';
  /** Seq of the last entry sent to the client on this stream. */
  lastSeq: number;
  /** The document version the client holds (its last snapshot or patch). */
  documentSeq: number;
  /** The stream's epoch as the client knows it. */
  epoch?: string;
  buffer: LogEntry[];
  /** Live entries were dropped from a full buffer: read them from the log before going live. */
  dropped?: boolean;
  /** The log could not be read: nothing is buffered until the retry. */
  failed?: boolean;
  /** Attempts since the last success, for the retry back-off. */
  retries: number;
  /** Channels that cover this stream; the stream is dropped when the last goes. */
  channels: Set<string>;
  options: StreamOptions;
  /** Conflation: live entries held until the next flush. */
  held?: { entries: LogEntry[]; timer: boolean };
}

export type ChannelState = ParsedChannel & {
  filter?: import('./channels.js').FirehoseFilter;
  options: StreamOptions;
};

export type SessionTransport = 'ws' | 'sse';

export interface SendResult {
  ok: boolean;
  bytes: number;
}

export interface SessionHooks {
  /** Arranges for `pump` to run soon (the scheduler shares write time fairly). */
  schedule(session: Session): void;
  /** The session broke a send-buffer rule. */
  slow(session: Session, owed: number): void;
  /** Messages and bytes queued, for the transport's counters. */
  sent(messages: number, bytes: number): void;
}

export class Session {
  readonly channels = new Map<string, ChannelState>();
  readonly streams = new Map<StreamId, StreamState>();
  closed = false;
  private queue: Outgoing[] = [];
  private head = 0;
  private queuedBytes = 0;
  private blocked = false;
  private scheduled = false;
  /** The turn of the last batch written at once. */
  private directTurn = -1;
  private overSince: number | undefined;
  private overTimer = false;
  private writableWaiters: Array<() => void> = [];
  /** Attach jobs run one at a time, each when the connection has room. */
  private attachChain: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly principal: Principal,
    readonly transport: SessionTransport,
    readonly sink: Sink,
    private readonly limits: Pick<
      DeliveryLimits,
      'maxBufferedBytes' | 'hardBufferedBytes' | 'slowConsumerMs' | 'paceBytes'
    >,
    private readonly wall: Clock,
    private readonly hooks: SessionHooks,
    private readonly signal: AbortSignal,
  ) {}

  get scope(): Scope {
    return this.principal.scope;
  }

  /** Bytes this connection owes: queued here plus buffered by its transport. */
  owed(): number {
    return this.queuedBytes + this.sink.buffered();
  }

  queued(): number {
    return this.queuedBytes;
  }

  /** Queues a batch in order, or none of it (closed, or past the hard limit: slow consumer). */
  send(batch: readonly Outgoing[]): SendResult {
    if (this.closed || batch.length === 0) return { ok: false, bytes: 0 };
    let bytes = 0;
    for (const o of batch) bytes += o.bytes;
    const owed = this.owed();
    // A message is always accepted onto an empty connection, so one document above a limit still goes out.
    if (owed > 0 && owed + bytes > this.limits.hardBufferedBytes) {
      this.hooks.slow(this, owed + bytes);
      return { ok: false, bytes: 0 };
    }
    this.hooks.sent(batch.length, bytes);
    if (this.queuedBytes === 0 && !this.scheduled && !this.blocked && bytes <= SMALL_BYTES) {
      const turn = currentTurn();
      if (turn !== this.directTurn) {
        this.directTurn = turn;
        this.write(batch);
        // Nothing is queued here: what is owed is what the transport holds.
        if (this.overSince !== undefined || this.sink.buffered() > this.limits.maxBufferedBytes)
          this.checkOver();
        this.wakeWritable();
        return { ok: true, bytes };
      }
    }
    for (const o of batch) this.queue.push(o);
    this.queuedBytes += bytes;
    this.requestPump();
    this.checkOver();
    return { ok: true, bytes };
  }

  /** Hands a batch to the transport; when it asks to wait, nothing more is written until it drains. */
  private write(batch: readonly Outgoing[]) {
    if (this.sink.write(batch)) return;
    this.blocked = true;
    this.sink.onDrain(() => this.drained());
  }

  sendOne(o: Outgoing): SendResult {
    return this.send([o]);
  }

  private requestPump() {
    if (this.scheduled || this.blocked || this.closed) return;
    this.scheduled = true;
    this.hooks.schedule(this);
  }

  /** Writes up to `budget` bytes of the queue (at least one message). Returns the bytes written. */
  pump(budget: number): number {
    this.scheduled = false;
    if (this.closed || this.blocked) return 0;
    let written = 0;
    if (this.head === 0 && this.queuedBytes <= budget && this.queue.length > 0) {
      // The common case (live traffic): everything queued leaves in one write.
      const batch = this.queue;
      written = this.queuedBytes;
      this.queue = [];
      this.queuedBytes = 0;
      this.write(batch);
    }
    while (this.head < this.queue.length && written < budget && !this.blocked) {
      const batch: Outgoing[] = [];
      let bytes = 0;
      while (this.head < this.queue.length && (batch.length === 0 || bytes < budget - written)) {
        const o = this.queue[this.head++]!;
        batch.push(o);
        bytes += o.bytes;
      }
      this.queuedBytes -= bytes;
      written += bytes;
      this.write(batch);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.head < this.queue.length && !this.blocked) this.requestPump();
    this.checkOver();
    this.wakeWritable();
    return written;
  }

  private drained() {
    this.blocked = false;
    if (this.closed) return;
    if (this.queuedBytes > 0) this.requestPump();
    this.checkOver();
    this.wakeWritable();
  }

  /** Tracks how long the connection has owed more than the soft limit; slow once that lasts too long. */
  private checkOver() {
    if (this.closed) return;
    const owed = this.owed();
    if (owed <= this.limits.maxBufferedBytes) {
      this.overSince = undefined;
      return;
    }
    if (this.overSince === undefined) this.overSince = this.wall.now();
    if (this.overTimer) return;
    this.overTimer = true;
    const wait = this.overSince + this.limits.slowConsumerMs - this.wall.now();
    this.wall.sleep(Math.max(0, wait), this.signal).then(
      () => {
        this.overTimer = false;
        if (this.closed || this.overSince === undefined) return;
        const still = this.owed();
        if (still <= this.limits.maxBufferedBytes) {
          this.overSince = undefined;
          return;
        }
        if (this.wall.now() - this.overSince >= this.limits.slowConsumerMs) this.hooks.slow(this, still);
        else this.checkOver();
      },
      () => {
        this.overTimer = false;
      },
    );
  }

  /** Resolves once the connection owes less than `paceBytes` (or is closed): room for attach work. */
  writable(): Promise<void> {
    if (this.closed || this.owed() < this.limits.paceBytes) return Promise.resolve();
    return new Promise((resolve) => this.writableWaiters.push(resolve));
  }

  private wakeWritable() {
    if (this.writableWaiters.length === 0) return;
    if (!this.closed && this.owed() >= this.limits.paceBytes) return;
    const waiters = this.writableWaiters;
    this.writableWaiters = [];
    for (const w of waiters) w();
  }

  /** Runs attach jobs one after another, each once the connection has room. */
  enqueueAttach(job: () => Promise<void>): void {
    this.attachChain = this.attachChain.then(async () => {
      if (this.closed) return;
      await this.writable();
      if (!this.closed) await job();
    });
  }

  /** Marks the session closed and drops what it held. */
  markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
    this.overSince = undefined;
    this.wakeWritable();
  }
}
