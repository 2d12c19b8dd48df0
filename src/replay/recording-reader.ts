/**
 * Reads recordings back, in order: every exchange of the given files (a directory stands for its
 * `*.jsonl.gz` files, by name, which is by day). A torn end (the last gzip member or line of a recording cut
 * short by a crash) ends that file cleanly; a line that is not an exchange is skipped and counted.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { constants, createGunzip } from 'node:zlib';
import type { Logger } from '../logger.js';
import { parseLine, type RecordedExchange } from './exchange.js';

/** The recording files a path names: itself, or a directory's `*.jsonl.gz` in name order. */
export async function recordingFiles(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      const names = (await readdir(path)).filter((n) => n.endsWith('.jsonl.gz')).sort();
      out.push(...names.map((n) => join(path, n)));
    } else out.push(path);
  }
  return out;
}

export async function* readRecording(
  files: readonly string[],
  logger?: Logger,
): AsyncGenerator<RecordedExchange> {
  for (const file of files) {
    // Sync flush lets a torn last member yield what it holds instead of failing the whole file.
    const gunzip = createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
    const input = createReadStream(file);
    input.on('error', (err) => gunzip.destroy(err));
    const lines = createInterface({ input: input.pipe(gunzip), crlfDelay: Number.POSITIVE_INFINITY });
    let skipped = 0;
    try {
      for await (const line of lines) {
        if (line === '') continue;
        const exchange = parseLine(line);
        if (exchange) yield exchange;
        else skipped++;
      }
    } catch (err) {
      logger?.warn({ err, file }, 'recording ends early (torn or corrupt); replaying what came before');
    } finally {
      lines.close();
    }
    if (skipped > 0) logger?.warn({ file, skipped }, 'recording lines skipped: not an exchange');
  }
}
