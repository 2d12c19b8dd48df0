/**
 * Record and replay of the racing API. Recording: `startRecording` (RECORD_DIR).
 * Replay: `startReplay` serves recordings as the racing API on a clock of its own, standalone
 * (`npm run simulator -- --replay FILE`) or embedded (REPLAY_FILE), where racewire shares that clock.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { FetchLike } from '../upstream/transport.js';
import { createRecorder, type DropReason, type RecorderStats } from './recorder.js';
import { recordingFetch } from './recording-fetch.js';
import { readRecording, recordingFiles } from './recording-reader.js';
import { createReplayServer, type ReplayServer } from './replay-server.js';
import { createReplayStore, type ReplayStore } from './replay-store.js';

export interface Recording {
  /** The fetch to give the racing client: global fetch, every response recorded. */
  fetch: FetchLike;
  /** Writes what is buffered (call at shutdown). */
  close(): Promise<void>;
  stats(): RecorderStats;
}

/** Records every upstream response into `dir` (RECORD_DIR). */
export function startRecording(opts: {
  dir: string;
  baseUrl: string;
  clock: Clock;
  logger: Logger;
  onDrop?: (reason: DropReason, records: number) => void;
  fetch?: FetchLike;
}): Recording {
  const recorder = createRecorder({ dir: opts.dir, logger: opts.logger, onDrop: opts.onDrop });
  opts.logger.info({ dir: opts.dir }, 'recording every upstream response');
  return {
    fetch: recordingFetch({
      fetch: opts.fetch ?? ((url, init) => globalThis.fetch(url, init)),
      baseUrl: opts.baseUrl,
      clock: opts.clock,
      record: (exchange) => recorder.record(exchange),
      logger: opts.logger,
    }),
    close: () => recorder.close(),
    stats: () => recorder.stats(),
  };
}

export interface Replay {
  /** Base URL of the replayed racing API. */
  url: string;
  clock: Clock;
  server: ReplayServer;
  store: ReplayStore;
  close(): Promise<void>;
}

/**
 * Opens `paths` (files or directories of recordings) and serves them. `clockFrom` builds the replay's clock
 * from the instant the replay should start at: `from`, else the first record's arrival.
 */
export async function startReplay(opts: {
  paths: readonly string[];
  from?: number;
  clockFrom: (start: number) => Clock;
  logger: Logger;
  port?: number;
  host?: string;
}): Promise<Replay> {
  const files = await recordingFiles(opts.paths);
  const store = createReplayStore(readRecording(files, opts.logger)[Symbol.asyncIterator]());
  const first = await store.first();
  if (first === undefined && opts.from === undefined) {
    throw new Error(`no recorded exchange in ${files.join(', ') || opts.paths.join(', ')}`);
  }
  const clock = opts.clockFrom(opts.from ?? (first as number));
  const server = await createReplayServer({ store, clock, logger: opts.logger });
  const url = await server.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' });
  opts.logger.info(
    {
      files,
      firstRecordAt: first === undefined ? null : new Date(first).toISOString(),
      startsAt: new Date(clock.now()).toISOString(),
    },
    'replaying a recording of the racing API',
  );
  return { url, clock, server, store, close: () => server.close() };
}
