/**
 * Event log in Redis, shared by every node: each stream's entries in a Redis Stream with IDs `<seq>-0`
 * (bounded by XTRIM MAXLEN), its head (epoch, seq, documentSeq, patchesSince) in a hash, and its document as
 * a checkpoint in a string key and the patches since it in a list: the ~200 KB document is written every
 * `checkpointEvery` patches, not on every change, and the head is rebuilt from the checkpoint and the patches
 * by the rule the SQLite log follows (`../sqlite/checkpoints.ts`).
 * Numbering and read rules come from `log-rules.ts`, like the other adapters, so positions mean the same on
 * every node. The Redis client is the caller's: close() does not quit it.
 *
 * Every event entry also goes, in the append's own script, to the feed stream (`<prefix>feed`) that the
 * webhook outbox reads from its cursor. Checkpoints and the stream's entries are stored packed (brotli, as
 * the SQLite log's checkpoints: `packValue`); the feed's copy of an event stays text.
 */
import { randomUUID } from 'node:crypto';
import type { Operation } from 'fast-json-patch';
import type { Redis } from 'ioredis';
import type { EventEntry, LogEntry, StreamId } from '../../events/envelope.js';
import { RedisStoreError, redisCall } from '../../redis/errors.js';
import { EventLogError } from '../errors.js';
import { assertCount, checkRead, stampChange } from '../log-rules.js';
import type { EventFeed, EventLog, ReadResult, StreamHead } from '../ports.js';
import {
  applyPatches,
  checkpointDue,
  DEFAULT_CHECKPOINT_EVERY,
  packDocument,
  unpackDocument,
} from '../sqlite/checkpoints.js';
import { appendScript } from './append-script.js';
import { redisLogKeys } from './log-keys.js';
import { expireRetained } from './redis-retention.js';

export interface RedisEventLogOptions {
  /** The caller's client; commands must not be buffered forever (see docs/redis.md). */
  redis: Redis;
  /** Prefix of every key. @default 'racewire:' */
  prefix?: string;
  /** Entries kept per stream; older ones are trimmed on append. Unlimited when absent. */
  window?: number;
  /** Makes the log's epoch when the prefix holds none yet (once per Redis data set). @default crypto.randomUUID */
  newEpoch?: () => string;
  /**
   * The current fencing token of the lease that allows this node to write, or undefined when it holds none.
   * When given, an append whose token is older than the fence mark rejects with code `fenced`.
   */
  fence?: () => number | undefined;
  /**
   * The fence mark: pass the lease's token counter (`RedisLease.tokenKey`), so a token is stale as soon as
   * another is issued and a new one is always above every token that wrote. @default `<prefix>fence`
   */
  fenceKey?: string;
  /** Called when an append carrying a token was refused as fenced (the lease's term is over: resign). */
  onFenced?: () => void;
  /** How often an append renumbers after another node moved the head first. @default 16 */
  maxConflictRetries?: number;
  /** Patches between checkpoints of a head document. @default DEFAULT_CHECKPOINT_EVERY (32) */
  checkpointEvery?: number;
}

type XEntries = Array<[id: string, fields: string[]]>;
type XBufferEntries = Array<[id: Buffer, fields: Buffer[]]>;

/**
 * A packed value starts with this byte (JSON text never does), then brotli at the checkpoints' setting
 * (`packDocument`): checkpoints (`{S}:doc`) and a stream's entries (field `z` instead of `e`). Values written
 * as text before (no marker, field `e`) still read.
 */
const PACKED = 0;
export const packValue = (json: string): Buffer => Buffer.concat([Buffer.of(PACKED), packDocument(json)]);
export const valueText = (value: Buffer): string =>
  value[0] === PACKED ? unpackDocument(value.subarray(1)) : value.toString('utf8');

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: an adapter of the event log port: its methods share the client, keys and scripts and each is short
export function createRedisEventLog(opts: RedisEventLogOptions): EventLog {
  const { redis, window, fence } = opts;
  if (window !== undefined) assertCount('window', window);
  const keys = redisLogKeys(opts.prefix ?? 'racewire:');
  const maxRetries = opts.maxConflictRetries ?? 16;
  const checkpointEvery = opts.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
  if (!Number.isSafeInteger(checkpointEvery) || checkpointEvery < 1) {
    throw new EventLogError(
      'invalid_argument',
      `checkpointEvery must be a positive integer, got ${checkpointEvery}`,
    );
  }
  let closed = false;
  /** One append per stream at a time on this node, so local appends do not race each other's scripts. */
  const tails = new Map<StreamId, Promise<unknown>>();

  const open = () => {
    if (closed) throw new EventLogError('log_closed', 'the event log is closed');
  };

  // Read with every head, never cached: a Redis restarted without its data has another epoch (or none yet)
  // whichever node looks, and a follower that never appends must see it too. The first node to look after
  // the epoch went sets the new one; every other node reads the same.
  const logEpoch = async (stored: string | null): Promise<string> => {
    if (stored) return stored;
    return redisCall('event log epoch', async () => {
      await redis.set(keys.epoch, (opts.newEpoch ?? randomUUID)(), 'NX');
      const epoch = await redis.get(keys.epoch);
      if (!epoch) throw new RedisStoreError('corrupt_state', `${keys.epoch} vanished after SET NX`);
      return epoch;
    });
  };

  /** Runs a MULTI: the value of each command, or the first command's error. */
  const execAll = (what: string, tx: ReturnType<Redis['multi']>) =>
    redisCall(what, async () => {
      const out = await tx.exec();
      if (!out) throw new RedisStoreError('redis_unavailable', `${what}: transaction aborted`);
      for (const [err] of out) if (err) throw err;
      return out.map(([, value]) => value);
    });

  /** The head, with the document rebuilt from its checkpoint and the patches since when they are given. */
  const toHead = (
    stream: StreamId,
    hash: Record<string, string>,
    epoch: string,
    doc: string | null,
    patches: string[] = [],
  ) => {
    const seq = Number(hash.seq ?? 0);
    const documentSeq = Number(hash.documentSeq ?? 0);
    const patchesSince = Number(hash.patchesSince ?? 0);
    if (
      !Number.isSafeInteger(seq) ||
      !Number.isSafeInteger(documentSeq) ||
      !Number.isSafeInteger(patchesSince)
    ) {
      throw new RedisStoreError('corrupt_state', `${keys.head(stream)} holds a non-integer seq`);
    }
    const document =
      doc === null
        ? undefined
        : applyPatches(
            JSON.parse(doc),
            patches.map((p) => JSON.parse(p) as Operation[]),
          );
    return { stream, epoch, seq, documentSeq, document, patchesSince } satisfies StreamHead & {
      patchesSince: number;
    };
  };

  // With the document: hash, checkpoint and patches in one MULTI (an append between them could checkpoint and
  // drop the patches). Without (before every append): the hash alone, one command; the log's epoch is read only
  // for a stream that has none yet.
  const readHead = async (stream: StreamId, withDocument: boolean) => {
    let hash: Record<string, string>;
    let doc: string | null = null;
    let patches: string[] = [];
    if (withDocument) {
      const tx = redis
        .multi()
        .hgetall(keys.head(stream))
        .getBuffer(keys.document(stream))
        .lrange(keys.patches(stream), 0, -1);
      const results = await execAll(`head of ${stream}`, tx);
      const [h, packed, p] = results as [Record<string, string>, Buffer | null, string[]];
      [hash, doc, patches] = [h, packed === null ? null : valueText(packed), p];
    } else {
      hash = await redisCall(`head of ${stream}`, () => redis.hgetall(keys.head(stream)));
    }
    const epoch =
      hash.epoch ?? (await logEpoch(await redisCall('event log epoch', () => redis.get(keys.epoch))));
    return toHead(stream, hash, epoch, doc, patches);
  };

  const parseEntries = (rows: XEntries): LogEntry[] =>
    rows.map(([id, fields]) => {
      const json = fields[fields.indexOf('e') + 1];
      if (json === undefined) throw new RedisStoreError('corrupt_state', `stream entry ${id} has no e field`);
      return JSON.parse(json) as LogEntry;
    });

  /** A stream's entries read as Buffers: field `z` packed, `e` JSON text (written before packing). */
  const parseBufferEntries = (rows: XBufferEntries): LogEntry[] =>
    rows.map(([id, fields]) => {
      const name = fields[0]?.toString();
      const value = fields[1];
      if ((name !== 'e' && name !== 'z') || value === undefined)
        throw new RedisStoreError('corrupt_state', `stream entry ${id} has no e or z field`);
      return JSON.parse(name === 'z' ? valueText(value) : value.toString('utf8')) as LogEntry;
    });

  const appendOnce = async (stream: StreamId, change: Parameters<EventLog['append']>[1]) => {
    for (let attempt = 0; ; attempt++) {
      open();
      const head = await readHead(stream, false);
      const stamped = stampChange(stream, head, change);
      if (stamped.entries.length === 0) return [];
      // Entries carry the epoch (the script checks it is still the log's), so a node that hears of them on
      // the bus knows a reset at once.
      const json = stamped.entries.map((e) => JSON.stringify({ ...e, epoch: head.epoch }));
      let token = '';
      if (fence) {
        const t = fence();
        if (t === undefined)
          throw new RedisStoreError('fenced', `append to ${stream}: this node holds no lease`);
        token = String(t);
      }
      const scriptKeys = [
        keys.head(stream),
        keys.document(stream),
        keys.entries(stream),
        keys.streams,
        opts.fenceKey ?? keys.fence,
        keys.epoch,
        keys.feed,
        keys.patches(stream),
        keys.retained,
      ];
      // A snapshot is a checkpoint; a patch is pushed onto the patches since the last one unless one is due.
      const patch = stamped.entries.find((e) => e.kind === 'patch');
      const checkpoint =
        patch === undefined ||
        checkpointDue(head.patchesSince + 1, checkpointEvery, patch.ops, change.document);
      let documentArg: string | Buffer = '';
      if (stamped.documentSeq !== undefined)
        documentArg = checkpoint ? packValue(JSON.stringify(change.document)) : JSON.stringify(patch?.ops);
      const args = [
        head.seq,
        token,
        stamped.documentSeq ?? '',
        documentArg,
        window ?? '',
        stream,
        stamped.entries.map((e) => (e.kind === 'event' ? '1' : '2')).join(''),
        change.now.getTime(),
        head.epoch,
        checkpoint ? 'c' : 'p',
        // Every entry packed into the stream (a race's snapshot is ~170 kB of text, 20 kB packed;
        // bench/redis-bytes.ts), then the events again as text for the feed, which its reader parses.
        ...json.map(packValue),
        ...json.filter((_, i) => stamped.entries[i]!.kind === 'event'),
      ];
      const reply = (await redisCall(`append to ${stream}`, () =>
        appendScript.run(redis, scriptKeys, args),
      )) as [string, string?];
      if (reply[0] === 'ok') return json.map((j) => JSON.parse(j) as LogEntry);
      if (reply[0] === 'fenced') {
        opts.onFenced?.();
        throw new RedisStoreError(
          'fenced',
          `append to ${stream}: fencing token ${token} is older than ${reply[1]}, another node holds the lease`,
        );
      }
      // A flushed Redis lost the epoch (or another node made a new one since the head was read): the next
      // head read makes or reads the new one, and the change is numbered again in it (clients then resync).
      if (attempt >= maxRetries) {
        throw new RedisStoreError(
          'append_conflict',
          `append to ${stream}: head kept moving (${attempt + 1} tries)`,
        );
      }
    }
  };

  const feed: EventFeed = {
    async read(after, limit) {
      open();
      const rows = await redisCall('read feed', () =>
        redis.xrange(keys.feed, after === '' ? '-' : `(${after}`, '+', 'COUNT', limit),
      );
      return rows.map(([position, fields]) => ({
        position,
        entry: parseEntries([[position, fields]])[0] as EventEntry,
      }));
    },
    async trim(through) {
      open();
      // MINID keeps ids at or above its argument: pass the id just after `through`.
      const [ms, seq] = through.split('-');
      await redisCall('trim feed', () => redis.xtrim(keys.feed, 'MINID', `${ms}-${Number(seq) + 1}`));
    },
  };

  return {
    async append(stream, change) {
      open();
      const previous = tails.get(stream) ?? Promise.resolve();
      const run = previous.catch(() => {}).then(() => appendOnce(stream, change));
      tails.set(stream, run);
      try {
        return await run;
      } finally {
        if (tails.get(stream) === run) tails.delete(stream);
      }
    },

    async head(stream) {
      open();
      const { patchesSince: _, ...head } = await readHead(stream, true);
      return head;
    },

    async read(stream, afterSeq, readOpts = {}): Promise<ReadResult> {
      open();
      assertCount('afterSeq', afterSeq);
      if (readOpts.limit !== undefined) assertCount('limit', readOpts.limit);
      const limit = readOpts.limit;
      // Head, epoch, oldest retained entry and the wanted range in one MULTI: a consistent picture.
      const tx = redis
        .multi()
        .hgetall(keys.head(stream))
        .get(keys.epoch)
        .xrange(keys.entries(stream), '-', '+', 'COUNT', 1);
      if (limit === undefined) tx.xrangeBuffer(keys.entries(stream), `${afterSeq + 1}-0`, '+');
      else if (limit > 0) tx.xrangeBuffer(keys.entries(stream), `${afterSeq + 1}-0`, '+', 'COUNT', limit);
      const results = await execAll(`read ${stream}`, tx);
      const hash = results[0] as Record<string, string>;
      const head = toHead(stream, hash, hash.epoch ?? (await logEpoch(results[1] as string | null)), null);
      const oldest = (results[2] as XEntries)[0];
      const oldestSeq = oldest ? Number(oldest[0].split('-')[0]) : undefined;
      const refused = checkRead(head, oldestSeq, afterSeq, readOpts);
      if (refused) {
        const { patchesSince: _, ...full } = await readHead(stream, true);
        return { ...refused, head: full };
      }
      return { ok: true, entries: parseBufferEntries((results[3] as XBufferEntries | undefined) ?? []) };
    },

    async streams() {
      open();
      const members = await redisCall('list streams', () => redis.smembers(keys.streams));
      return members.sort();
    },

    async trim(keep) {
      open();
      assertCount('keep', keep);
      const streams = await redisCall('list streams', () => redis.smembers(keys.streams));
      if (streams.length === 0) return;
      const tx = redis.pipeline();
      for (const s of streams) tx.xtrim(keys.entries(s), 'MAXLEN', keep);
      await redisCall('trim', async () => {
        for (const [err] of (await tx.exec()) ?? []) if (err) throw err;
      });
    },

    async expire(policy) {
      open();
      return expireRetained(redis, keys, policy);
    },

    feed,

    async close() {
      closed = true;
    },
  };
}
