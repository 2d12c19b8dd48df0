/**
 * Replay pages, read from the log and serialised once per variant, shared between resuming clients (in a
 * resume storm every client asks for the same pages). Cached in a byte-bounded LRU. A full page never
 * changes; the last, short page of a stream is reused only while the node has seen nothing newer.
 */
import { LRUCache } from 'lru-cache';
import type { StreamId } from '../../events/envelope.js';
import type { EventLog, StreamHead } from '../../store/ports.js';
import type { Scope } from './auth.js';
import { entryOutgoing } from './entry-messages.js';
import type { Outgoing } from './outgoing.js';
import type { SnapshotSource } from './snapshot-source.js';
import { type StreamOptions, variantKey } from './stream-options.js';

export interface Page {
  /** null where the variant cannot take the entry as a patch (it needs a snapshot). */
  frames: (Outgoing | null)[];
  /** Seq of the last entry (the position read after, when empty). */
  lastSeq: number;
  full: boolean;
}

export type PageResult =
  | { ok: true; page: Page }
  | { ok: false; reason: 'too_old' | 'epoch_mismatch'; head: StreamHead };

export class ReplaySource {
  private readonly pages: LRUCache<string, Page>;
  private readonly inflight = new Map<string, Promise<PageResult>>();

  constructor(
    private readonly log: EventLog,
    private readonly heads: Pick<SnapshotSource, 'latest'>,
    private readonly pageSize: number,
    maxBytes: number,
  ) {
    this.pages = new LRUCache<string, Page>({
      maxSize: Math.max(1, maxBytes),
      // A small message counts twice: the WebSocket transport keeps one framed copy of it while it lives.
      sizeCalculation: (p) =>
        64 + p.frames.reduce((n, f) => n + (f ? (f.bytes <= 16 * 1024 ? 2 : 1) * f.bytes : 0), 0),
    });
  }

  /** Entries after `afterSeq` of `epoch`, at most one page, as the variant sees them. */
  read(
    stream: StreamId,
    afterSeq: number,
    epoch: string,
    scope: Scope,
    options: StreamOptions,
  ): Promise<PageResult> {
    const key = `${stream}|${epoch}|${afterSeq}|${variantKey(scope, options)}`;
    const page = this.pages.get(key);
    if (page && (page.full || (this.heads.latest(stream)?.seq ?? 0) <= page.lastSeq))
      return Promise.resolve({ ok: true, page });
    let p = this.inflight.get(key);
    if (!p) {
      p = this.load(key, stream, afterSeq, epoch, scope, options).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  bytes(): number {
    return this.pages.calculatedSize;
  }

  private async load(
    key: string,
    stream: StreamId,
    afterSeq: number,
    epoch: string,
    scope: Scope,
    options: StreamOptions,
  ): Promise<PageResult> {
    const r = await this.log.read(stream, afterSeq, { epoch, limit: this.pageSize });
    if (!r.ok) return r;
    const page: Page = {
      frames: r.entries.map((e) => entryOutgoing(e, scope, options) ?? null),
      lastSeq: r.entries.at(-1)?.seq ?? afterSeq,
      full: r.entries.length >= this.pageSize,
    };
    this.pages.set(key, page);
    return { ok: true, page };
  }
}
