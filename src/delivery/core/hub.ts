/**
 * The subscription core: every transport (WebSocket, Server-Sent Events) opens sessions here and only
 * moves bytes. The hub holds the registry, the per-key limits, the shared snapshot and replay caches, the
 * bus subscription (fan-out), the heartbeat with its check for a lost tail, and the slow-consumer rule.
 * Wall-clock time drives all of it; race time never reaches a client's limits.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Bus } from '../../bus/bus.js';
import type { Clock } from '../../clock.js';
import type { StreamId } from '../../events/envelope.js';
import type { EventLog } from '../../store/ports.js';
import { Admission, type Refusal } from './admission.js';
import type { AuthConfig, Principal } from './auth.js';
import type { RaceCatalog } from './catalog.js';
import type { FirehoseFilter, ParsedChannel } from './channels.js';
import { flushHeld } from './conflation.js';
import { type ChannelRequest, type FanoutDeps, fanOut, subscribeChannel } from './fanout.js';
import { FlushScheduler } from './flush-scheduler.js';
import { heartbeatOutgoing, runHeartbeat } from './heartbeat.js';
import { DEFAULT_DELIVERY_LIMITS, type DeliveryLimits } from './limits.js';
import { outgoing } from './outgoing.js';
import { Registry, subscriberCounts } from './registry.js';
import { ReplaySource } from './replay-source.js';
import { Session, type SessionTransport } from './session.js';
import { CloseCode, type Sink } from './sink.js';
import { SnapshotSource } from './snapshot-source.js';
import { emptyStats, type HubStats } from './stats.js';
import { type AttachContext, attachStream, resyncStream } from './stream-attach.js';
import { WorkQueue } from './work-queue.js';

export interface HubDeps {
  log: EventLog;
  bus: Bus;
  catalog: RaceCatalog;
  /** The wall clock: limits, heartbeats, timeouts. Never the (possibly faster) race clock. */
  wall: Clock;
  logger: Logger;
  auth: AuthConfig;
  limits?: Partial<DeliveryLimits>;
}

export type OpenResult = { ok: true; session: Session } | Refusal;

export class DeliveryHub {
  readonly limits: DeliveryLimits;
  readonly wall: Clock;
  readonly catalog: RaceCatalog;
  readonly auth: AuthConfig;
  readonly registry = new Registry();
  private readonly admission: Admission;
  private readonly scheduler = new FlushScheduler();
  private readonly stop = new AbortController();
  private readonly counters = { ws: emptyStats(), sse: emptyStats() };
  private readonly snapshots: SnapshotSource;
  private readonly replays: ReplaySource;
  private readonly attach: AttachContext;
  private readonly fanout: FanoutDeps;
  private readonly unsubscribeBus: () => void;
  private readonly heartbeats: Promise<void>;
  private readonly logger: Logger;
  private readonly work: WorkQueue;

  constructor(deps: HubDeps) {
    this.limits = { ...DEFAULT_DELIVERY_LIMITS, ...deps.limits };
    this.wall = deps.wall;
    this.catalog = deps.catalog;
    this.auth = deps.auth;
    this.logger = deps.logger;
    this.admission = new Admission(this.limits, this.wall);
    // Every pending timer (conflation, slow-consumer checks, retries) listens for the hub's stop.
    setMaxListeners(0, this.stop.signal);
    this.work = new WorkQueue((err) => this.logger.error({ err }, 'subscription work failed'));
    this.snapshots = new SnapshotSource(deps.log, this.limits.snapshotCacheBytes, this.wall);
    this.replays = new ReplaySource(
      deps.log,
      this.snapshots,
      this.limits.replayPageSize,
      this.limits.replayCacheBytes,
    );
    this.attach = {
      registry: this.registry,
      snapshots: this.snapshots,
      replays: this.replays,
      wall: this.wall,
      signal: this.stop.signal,
      limits: this.limits,
      merged: new Map(),
      ticks: new Map(),
      onError: (err, session, stream) => {
        this.logger.error({ err, conn: session.id, stream }, 'stream attach failed; retrying');
        session.sendOne(
          outgoing({
            type: 'error',
            code: 'internal',
            message: `could not load stream ${stream}; retrying with a snapshot`,
          }),
        );
      },
    };
    this.fanout = { catalog: this.catalog, attach: this.attach };
    this.unsubscribeBus = deps.bus.subscribe((entries) => fanOut(this.fanout, entries));
    this.heartbeats = runHeartbeat({
      wall: this.wall,
      everyMs: this.limits.heartbeatMs,
      pageSize: this.limits.replayPageSize,
      signal: this.stop.signal,
      log: deps.log,
      registry: this.registry,
      snapshots: this.snapshots,
      onTail: (entries) => fanOut(this.fanout, entries),
      onReset: (stream) => {
        // The cached head is of the old log: the resyncs must read the new one.
        this.snapshots.invalidate(stream);
        for (const session of this.registry.byStream.get(stream) ?? []) {
          const state = session.streams.get(stream);
          if (state?.phase === 'live') resyncStream(this.attach, session, stream, state, 'epoch_mismatch');
        }
      },
      onTailError: (err, stream) => this.logger.warn({ err, stream }, 'heartbeat tail check failed'),
      beat: () => this.beat(),
    });
  }

  /** Opens a session for an authenticated principal, or says which limit refuses it. */
  open(principal: Principal, transport: SessionTransport, sink: Sink, tokens = 0): OpenResult {
    const counters = this.counters[transport];
    if (this.stop.signal.aborted)
      return { ok: false, code: 'too_many_connections', message: 'server closing' };
    const admitted = this.admission.connect(principal, tokens);
    if (!admitted.ok) {
      counters.rejected++;
      return admitted;
    }
    const session = new Session(
      randomUUID(),
      principal,
      transport,
      sink,
      this.limits,
      this.wall,
      {
        schedule: this.scheduler.schedule,
        slow: (s, owed) => this.slow(s, owed),
        sent: (messages, bytes) => {
          counters.messagesSent += messages;
          counters.bytesSent += bytes;
        },
      },
      this.stop.signal,
    );
    this.registry.all.add(session);
    counters.connections++;
    counters.connectionsTotal++;
    return { ok: true, session };
  }

  /** The transport saw its connection end. */
  closed(session: Session): void {
    if (!this.registry.all.has(session)) return;
    session.markClosed();
    this.admission.disconnect(session.principal, session.channels.size);
    this.counters[session.transport].connections--;
    this.counters[session.transport].subscriptions -= session.channels.size;
    this.registry.removeConnection(session);
  }

  /** Runs subscription work in arrival order, a few milliseconds of it per event-loop turn. */
  defer(work: () => void): void {
    this.work.push(work);
  }

  /** One client message against the key's rate. */
  take(session: Session): boolean {
    return this.admission.take(session.principal);
  }

  /** Counts a new channel against the per-connection and per-key limits. */
  admitChannel(session: Session, channel: string): { ok: true } | Refusal {
    if (session.channels.has(channel)) return { ok: true };
    if (session.channels.size >= this.limits.maxSubscriptions)
      return {
        ok: false,
        code: 'too_many_subscriptions',
        message: `at most ${this.limits.maxSubscriptions} channels`,
      };
    const r = this.admission.subscribe(session.principal, 1);
    if (r.ok) this.counters[session.transport].subscriptions++;
    return r;
  }

  subscribe(session: Session, req: ChannelRequest): string[] {
    return subscribeChannel(this.fanout, session, req);
  }

  subscribeFirehose(
    session: Session,
    channel: string,
    filter: ParsedChannel & { kind: 'firehose'; filter?: FirehoseFilter },
  ) {
    session.channels.set(channel, { ...filter, options: {} });
    this.registry.firehose.add(session);
  }

  /** Removes a channel and the streams only it covered; false when not subscribed. */
  unsubscribe(session: Session, channel: string): boolean {
    const ch = session.channels.get(channel);
    if (!ch) return false;
    session.channels.delete(channel);
    this.admission.unsubscribe(session.principal, 1);
    this.counters[session.transport].subscriptions--;
    if (ch.kind === 'firehose') this.registry.firehose.delete(session);
    if (ch.kind === 'meeting') this.registry.removeMeeting(session, ch.meetingId);
    for (const [stream, state] of [...session.streams]) {
      state.channels.delete(channel);
      if (state.channels.size === 0) this.registry.removeStream(session, stream);
    }
    return true;
  }

  /** A fresh snapshot of a subscribed stream; false when not subscribed. */
  resync(session: Session, stream: StreamId): boolean {
    const state = session.streams.get(stream);
    if (!state) return false;
    const channel = [...state.channels][0]!;
    const next = attachStream(this.attach, session, stream, channel, state.options, undefined, 'resync');
    for (const c of state.channels) next.channels.add(c);
    return true;
  }

  subscriberCounts(transport?: SessionTransport, into?: Map<string, number>): Map<string, number> {
    const sessions = [...this.registry.all].filter((s) => !transport || s.transport === transport);
    return subscriberCounts(sessions, this.catalog, into);
  }

  stats(): HubStats {
    let queuedBytes = 0;
    for (const s of this.registry.all) queuedBytes += s.queued();
    return {
      ws: { ...this.counters.ws },
      sse: { ...this.counters.sse },
      memory: {
        queuedBytes,
        replayCacheBytes: this.replays.bytes(),
        snapshotCacheBytes: this.snapshots.bytes(),
      },
    };
  }

  /** Ends every session with 1001 (going away) and stops the timers. */
  async close(): Promise<void> {
    if (this.stop.signal.aborted) return;
    this.stop.abort(new Error('delivery closed'));
    this.unsubscribeBus();
    await this.heartbeats;
    for (const s of [...this.registry.all]) {
      s.markClosed();
      s.sink.end(CloseCode.GoingAway, 'server going away: reconnect and resume');
    }
  }

  private slow(session: Session, owed: number) {
    if (session.closed) return;
    this.counters[session.transport].slowDisconnects++;
    this.logger.warn({ conn: session.id, key: session.principal.name, owed }, 'slow consumer');
    session.markClosed();
    session.sink.end(CloseCode.SlowConsumer, 'slow consumer: reconnect and resume');
    this.wall.sleep(this.limits.slowCloseGraceMs, this.stop.signal).then(
      () => session.sink.destroy(),
      () => session.sink.destroy(),
    );
  }

  /** Heartbeat to every session, after whatever conflation holds. */
  private beat() {
    this.admission.prune();
    const now = this.wall.now();
    for (const session of this.registry.all) {
      if (session.closed) continue;
      for (const [stream, state] of session.streams) flushHeld(this.attach, session, stream, state);
      session.sendOne(heartbeatOutgoing(session, this.catalog, this.snapshots, now));
    }
    this.attach.merged.clear();
  }
}
