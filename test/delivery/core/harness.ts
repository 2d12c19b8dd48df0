/**
 * The subscription core without sockets, as Centrifugo's client_test.go tests its client with a test
 * transport: a hub on the test feed (memory log, memory bus, manual wall clock) and clients whose `Sink` keeps
 * every message written, parsed. Client messages go through the WebSocket message handler exactly as the
 * gateway hands them over, so the protocol is tested without a port, a socket or a real clock. Waiting is for
 * a condition over event-loop turns (the core paces its work by turns), never for wall time.
 */
import type { ServerMessage } from '@racewire/client/protocol';
import type { Principal } from '../../../src/delivery/core/auth.js';
import type { DeliveryHub } from '../../../src/delivery/core/hub.js';
import type { DeliveryLimits } from '../../../src/delivery/core/limits.js';
import { joined, type Outgoing } from '../../../src/delivery/core/outgoing.js';
import type { Session, SessionTransport } from '../../../src/delivery/core/session.js';
import type { Sink } from '../../../src/delivery/core/sink.js';
import { handleMessage } from '../../../src/delivery/ws/message-handler.js';
import type { MemoryEventLogOptions } from '../../../src/store/memory-event-log.js';
import { createFeed, type Feed } from '../feed.js';
import { createHub } from '../ws/harness.js';

export { addRace, raceDoc } from '../ws/harness.js';

export const PARTNER: Principal = { name: 'partner', scope: 'partner', anonymous: false };
export const PUBLIC: Principal = { name: 'public', scope: 'public', anonymous: false };

/** The gateway's default: client messages above this are answered `message_too_large`. */
export const MAX_MESSAGE_BYTES = 16 * 1024;

/**
 * A transport that keeps what it is given. While `reading` is false it holds what it is written (as a socket
 * whose peer stopped reading would) and asks the session to wait; `read()` lets it all through.
 */
export class MemorySink implements Sink {
  readonly messages: ServerMessage[] = [];
  /** The close code and reason the core ended the connection with. */
  ended: { code: number; reason: string } | undefined;
  destroyed = false;
  reading = true;
  private held: Outgoing[] = [];
  private heldBytes = 0;
  private drains: Array<() => void> = [];

  write(batch: readonly Outgoing[]): boolean {
    if (this.reading && this.held.length === 0) {
      for (const o of batch) this.messages.push(JSON.parse(joined(o).toString('utf8')) as ServerMessage);
      return true;
    }
    for (const o of batch) {
      this.held.push(o);
      this.heldBytes += o.bytes;
    }
    return false;
  }

  buffered(): number {
    return this.heldBytes;
  }

  onDrain(listener: () => void): void {
    this.drains.push(listener);
  }

  end(code: number, reason: string): void {
    this.ended ??= { code, reason };
  }

  destroy(): void {
    this.destroyed = true;
  }

  /** The peer stops reading: writes are held from now on. */
  stopReading(): void {
    this.reading = false;
  }

  /** The peer reads everything held, and the sink drains. */
  read(): void {
    this.reading = true;
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const o of held) this.messages.push(JSON.parse(joined(o).toString('utf8')) as ServerMessage);
    for (const l of this.drains.splice(0)) l();
  }
}

/** Resolves once `pred` holds, letting the event loop turn in between; fails after `turns` turns. */
export async function until(pred: () => boolean, what = 'a condition', turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (pred()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  throw new Error(`still waiting for ${what} after ${turns} event-loop turns`);
}

/** Lets queued work run: `turns` event-loop turns. */
export async function turns(n = 50): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

export class CoreClient {
  readonly stats = { clientErrors: 0 };

  constructor(
    readonly hub: DeliveryHub,
    readonly session: Session,
    readonly sink: MemorySink,
  ) {}

  get received(): ServerMessage[] {
    return this.sink.messages;
  }

  /** A client message, as the gateway hands a text frame to the handler. */
  send(msg: unknown, opts: { binary?: boolean } = {}): void {
    const text = typeof msg === 'string' ? msg : JSON.stringify(msg);
    handleMessage(
      { hub: this.hub, session: this.session, maxMessageBytes: MAX_MESSAGE_BYTES, stats: this.stats },
      Buffer.from(text, 'utf8'),
      opts.binary ?? false,
    );
  }

  /** The first message received that matches `pred`, once there is one. */
  async seen<T extends ServerMessage = ServerMessage>(pred: (m: ServerMessage) => boolean): Promise<T> {
    await until(() => this.received.some(pred), 'a matching message');
    return this.received.find(pred) as T;
  }

  /** The messages matching `pred` once there are `n` of them. */
  async count(pred: (m: ServerMessage) => boolean, n: number): Promise<ServerMessage[]> {
    await until(() => this.received.filter(pred).length >= n, `${n} matching messages`);
    return this.received.filter(pred);
  }

  /** Waits for the stream's message of seq `seq`. */
  atSeq(stream: string, seq: number) {
    return this.seen((m) => 'stream' in m && m.stream === stream && 'seq' in m && m.seq === seq);
  }

  /**
   * Sends a ping and waits for its pong (answered at once, not deferred like subscription work): everything
   * the session had queued before it has been written.
   */
  async roundTrip(reqId = `rt${this.received.length}`): Promise<void> {
    this.send({ op: 'ping', reqId });
    await this.seen((m) => m.type === 'pong' && m.reqId === reqId);
  }

  /** The transport saw the connection end. */
  disconnect(): void {
    this.hub.closed(this.session);
  }
}

export interface CoreHarness extends Feed {
  hub: DeliveryHub;
  /** Opens a session, as a transport does after authentication; throws on a refusal. */
  connect(principal?: Principal, transport?: SessionTransport): CoreClient;
  close(): Promise<void>;
}

export function startCore(
  opts: { limits?: Partial<DeliveryLimits>; logOptions?: MemoryEventLogOptions } = {},
): CoreHarness {
  const feed = createFeed(opts.logOptions);
  const hub = createHub(feed, { limits: opts.limits });
  return {
    ...feed,
    hub,
    connect(principal = PARTNER, transport = 'ws') {
      const sink = new MemorySink();
      const opened = hub.open(principal, transport, sink);
      if (!opened.ok) throw new Error(`refused: ${opened.code}`);
      return new CoreClient(hub, opened.session, sink);
    },
    close: () => hub.close(),
  };
}
