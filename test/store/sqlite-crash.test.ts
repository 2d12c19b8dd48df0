import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../../src/store/sqlite/sqlite-event-log.js';
import { nodeArgs } from '../support/child-build.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-crash-'));
let child: ChildProcess | undefined;
afterAll(() => {
  // If the test failed before its kill, do not leave the writer running.
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

it('keeps every acknowledged append, with no gap, when the writing process is killed with SIGKILL', async () => {
  const path = join(dir, 'racewire.db');
  const script = fileURLToPath(new URL('./append-child.ts', import.meta.url));
  // A node of its own rather than `npx tsx`: the tsx CLI runs the script in a grandchild that SIGKILL on the
  // CLI would not reach.
  const writer = spawn(process.execPath, [...nodeArgs(script), path], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  writer.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let lastAcked = 0;
  let buffered = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    writer.on('exit', (_code, signal) => resolve(signal)),
  );
  await new Promise<void>((resolve, reject) => {
    writer.on('exit', () => reject(new Error(`child exited before it was killed: ${stderr}`)));
    writer.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) lastAcked = Number(line);
      // Kill mid-stream, well into the run, while appends are in flight.
      if (lastAcked >= 600) {
        writer.kill('SIGKILL');
        resolve();
      }
    });
  });
  expect(await exited).toBe('SIGKILL');

  const db = openDatabase(path);
  const log = createSqliteEventLog({ db });
  const head = await log.head('r1');
  expect(head.seq).toBeGreaterThanOrEqual(lastAcked);
  const read = await log.read('r1', 0);
  if (!read.ok) throw new Error('read refused');
  expect(read.entries.map((e) => e.seq)).toEqual(Array.from({ length: head.seq }, (_, i) => i + 1));
  // The head's document is the one of its last snapshot/patch: the change was atomic.
  const last = read.entries.at(-2)!;
  expect(head.documentSeq).toBe(last.seq);
  expect((head.document as { i: number }).i).toBe((last.seq - 1) / 2);
  const next = await log.append('r1', {
    entries: [{ kind: 'event', event: { type: 'after', meetingId: 'm1', data: {} } }],
    now: new Date(),
  });
  expect(next[0]?.seq).toBe(head.seq + 1);
  db.close();
});
