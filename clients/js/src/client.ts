/**
 * The racewire client: one WebSocket, subscriptions that survive reconnects, a live copy of every
 * subscribed race kept by applying patches, and gap detection by seq. Runs in browsers (global WebSocket)
 * and Node (pass `WebSocket` from the `ws` package).
 */
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
import { Emitter } from './emitter.js';
import type { RaceEvent } from './envelope.js';
import type { FirehoseFilter, ServerMessage, StreamPosition } from './messages.js';
import { SUBPROTOCOL, shouldReconnect } from './messages.js';
import { applyPatchAtomic } from './patch.js';

/** The part of the WebSocket API the client uses (browser WebSocket and `ws` both fit). */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketFactory = new (url: string, protocols?: string[]) => WebSocketLike;

export interface ClientOptions {
  /** e.g. `wss://racewire.example/ws`. */
  url: string;
  /** API key; sent as a `token.<key>` subprotocol, which browsers can set (headers they cannot). */
  token?: string;
  WebSocket?: WebSocketFactory;
  backoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** Reconnect when nothing (not even a heartbeat) arrives for this many heartbeat intervals. @default 2.5 */
  silenceFactor?: number;
}

/** What the client knows about one stream. */
export interface StreamCopy {
  stream: string;
  epoch: string | undefined;
  /** Last seq applied. */
  seq: number;
  /** Version of `document`. */
  documentSeq: number;
  document: unknown;
  /** Waiting for a snapshot after a gap or failed patch; entries are ignored meanwhile. */
  syncing: boolean;
}

/** What a subscription asks for beyond its channel (docs/protocol.md, "Tickers"). */
export interface SubscribeOptions {
  /** Firehose only: which events. */
  filter?: FirehoseFilter;
  /** Race and meeting channels: only these document paths (JSON Pointers, `*` for any member). */
  fields?: string[];
  /** Race and meeting channels: at most one merged patch per stream per this many ms (100-60000). */
  conflateMs?: number;
}

export type ClientEvents = {
  /** A typed event from a subscribed stream or the firehose. */
  event: (event: RaceEvent) => void;
  /** A stream's document changed (snapshot or patch). */
  document: (stream: string, document: unknown, seq: number) => void;
  /** The client had to start over from a snapshot: a failed resume, a gap, or a patch that did not apply. */
  resync: (stream: string, reason: string) => void;
  /** A resume succeeded: what was missed follows. */
  resumed: (stream: string) => void;
  open: () => void;
  close: (code: number, reason: string, willReconnect: boolean) => void;
  /**
   * The socket failed: it could not connect, or broke. In Node (`ws`) `message` says why (for example
   * `connect ECONNREFUSED 127.0.0.1:8080`); browsers do not tell scripts, so there it is generic. A `close`
   * follows.
   */
  socketError: (message: string) => void;
  error: (code: string, message: string) => void;
};

export class RacewireClient extends Emitter<ClientEvents> {
  private ws: WebSocketLike | undefined;
  private readonly channels = new Map<string, SubscribeOptions>();
  private readonly streams = new Map<string, StreamCopy>();
  private attempt = 0;
  private stopped = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private silenceTimer: ReturnType<typeof setTimeout> | undefined;
  private heartbeatMs = 15_000;
  private readonly backoff: BackoffOptions;
  /** Connections opened so far (1 after the first connect). */
  connections = 0;

  constructor(private readonly opts: ClientOptions) {
    super();
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
  }

  connect(): void {
    this.stopped = false;
    const Ctor = this.opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketFactory }).WebSocket;
    if (!Ctor) throw new Error('no WebSocket implementation: pass one in options.WebSocket');
    const protocols = [SUBPROTOCOL];
    if (this.opts.token) protocols.push(`token.${this.opts.token}`);
    const ws = new Ctor(this.opts.url, protocols);
    this.ws = ws;
    this.connections++;
    ws.onopen = () => {
      this.touch();
      for (const [channel, options] of this.channels) this.sendSubscribe(channel, options);
      this.emit('open');
    };
    ws.onmessage = (ev) => {
      this.touch();
      let msg: ServerMessage;
      try {
        msg = JSON.parse(typeof ev.data === 'string' ? ev.data : String(ev.data)) as ServerMessage;
      } catch {
        return;
      }
      this.handle(msg);
    };
    ws.onerror = (ev) => this.emit('socketError', socketErrorMessage(ev));
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      clearTimeout(this.silenceTimer);
      const again = !this.stopped && shouldReconnect(ev.code);
      this.emit('close', ev.code, ev.reason, again);
      if (again) {
        const delay = backoffDelay(this.attempt++, this.backoff, this.opts.random);
        this.reconnectTimer = setTimeout(() => this.connect(), delay);
      }
    };
  }

  /**
   * Subscribes to a race (`race:<id>`), a meeting (`meeting:<id>`) or the firehose, with a field projection,
   * conflation or a firehose filter. Survives reconnects.
   */
  subscribe(channel: string, options: SubscribeOptions = {}): void {
    this.channels.set(channel, options);
    if (this.ws?.readyState === 1) this.sendSubscribe(channel, options);
  }

  unsubscribe(channel: string): void {
    this.channels.delete(channel);
    if (channel.startsWith('race:')) this.streams.delete(channel.slice(5));
    this.send({ op: 'unsubscribe', channel });
  }

  /** The live copy of a race's document, or undefined before its snapshot. Do not mutate it. */
  document(stream: string): unknown {
    return this.streams.get(stream)?.document;
  }

  stream(stream: string): Readonly<StreamCopy> | undefined {
    return this.streams.get(stream);
  }

  /** Last positions, to resume from (also after a page reload, if the app stores them). */
  positions(): Record<string, StreamPosition> {
    const out: Record<string, StreamPosition> = {};
    for (const s of this.streams.values())
      if (s.epoch && !s.syncing) out[s.stream] = { seq: s.seq, epoch: s.epoch };
    return out;
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.silenceTimer);
    this.ws?.close(1000, 'client closed');
  }

  private send(msg: unknown) {
    if (this.ws?.readyState === 1) this.ws.send(JSON.stringify(msg));
  }

  private sendSubscribe(channel: string, options: SubscribeOptions) {
    const positions = this.positions();
    let from: Record<string, StreamPosition> | undefined;
    if (channel.startsWith('race:')) {
      const p = positions[channel.slice(5)];
      if (p) from = { [channel.slice(5)]: p };
    } else if (channel.startsWith('meeting:')) {
      // The server uses only the positions of streams the meeting covers.
      if (Object.keys(positions).length > 0) from = positions;
    }
    this.send({ op: 'subscribe', channel, ...(from ? { from } : {}), ...options });
  }

  /** Reconnects when the server has been silent for too long (browsers cannot see ws pings). */
  private touch() {
    clearTimeout(this.silenceTimer);
    const ms = this.heartbeatMs * (this.opts.silenceFactor ?? 2.5);
    this.silenceTimer = setTimeout(() => this.ws?.close(4000, 'server silent'), ms);
  }

  private resync(copy: StreamCopy, reason: string) {
    if (copy.syncing) return;
    copy.syncing = true;
    this.emit('resync', copy.stream, reason);
    this.send({ op: 'resync', stream: copy.stream });
  }

  private handle(msg: ServerMessage) {
    switch (msg.type) {
      case 'welcome':
        this.heartbeatMs = msg.heartbeatMs;
        this.attempt = 0;
        this.touch();
        return;
      case 'snapshot': {
        const prev = this.streams.get(msg.stream);
        const copy: StreamCopy = {
          stream: msg.stream,
          epoch: msg.epoch ?? prev?.epoch,
          seq: msg.seq,
          documentSeq: msg.documentSeq,
          document: msg.document,
          syncing: false,
        };
        this.streams.set(msg.stream, copy);
        if (msg.resumed === false && prev) this.emit('resync', msg.stream, msg.reason ?? 'not_resumed');
        this.emit('document', msg.stream, msg.document, msg.seq);
        return;
      }
      case 'resumed': {
        const copy = this.streams.get(msg.stream);
        if (copy && copy.epoch === msg.epoch && copy.seq === msg.fromSeq) this.emit('resumed', msg.stream);
        else if (copy) this.resync(copy, 'resume_mismatch');
        return;
      }
      case 'patch':
      case 'event': {
        const copy = this.streams.get(msg.stream);
        if (!copy) {
          if (msg.type === 'event') this.emit('event', msg.event); // firehose
          return;
        }
        if (copy.syncing || msg.seq <= copy.seq) return; // awaiting a snapshot, or a duplicate
        // Conflated streams skip the seqs merged into a patch and name the message before instead.
        if ((msg.prevSeq ?? msg.seq - 1) !== copy.seq) return this.resync(copy, 'gap');
        if (msg.type === 'event') {
          copy.seq = msg.seq;
          this.emit('event', msg.event);
          return;
        }
        if (msg.base !== copy.documentSeq) return this.resync(copy, 'base_mismatch');
        const result = applyPatchAtomic(copy.document, msg.ops);
        if (!result.ok) return this.resync(copy, 'patch_failed');
        copy.document = result.document;
        copy.seq = msg.seq;
        copy.documentSeq = msg.seq;
        this.emit('document', msg.stream, copy.document, msg.seq);
        return;
      }
      case 'error':
        this.emit('error', msg.code, msg.message);
        return;
      case 'heartbeat':
        // Everything up to each head was sent before the heartbeat: a copy behind it lost something.
        for (const [stream, head] of Object.entries(msg.streams)) {
          const copy = this.streams.get(stream);
          if (!copy || copy.syncing) continue;
          // A copy of no known epoch cannot match the head's: it resyncs too, rather than compare seqs only.
          if (head.epoch !== copy.epoch) this.resync(copy, 'epoch_mismatch');
          else if (head.seq > copy.seq) this.resync(copy, 'behind_head');
        }
        return;
      case 'subscribed':
      case 'unsubscribed':
      case 'pong':
        return;
    }
  }
}

/** The most a WebSocket error event says: `ws` gives a message (and the error); a browser gives nothing. */
function socketErrorMessage(ev: unknown): string {
  const { message, error } = (ev ?? {}) as { message?: unknown; error?: { message?: unknown } };
  if (typeof message === 'string' && message) return message;
  if (typeof error?.message === 'string' && error.message) return error.message;
  return 'WebSocket error';
}
