/**
 * A redis-server of the nemesis's own, on a free port (never the shared one), that it can kill and start
 * again: with its data (append-only file, fsync always, as an operator would persist it) or without (a fresh
 * directory: what a restart without persistence leaves).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../e2e/harness.js';
import { redisAnswers } from '../../support/redis-ping.js';

export interface OwnRedis {
  url: string;
  /** SIGKILL: Redis is away until `start`. */
  kill(): Promise<void>;
  /** Starts again on the same port and data, and waits until it answers. */
  start(): Promise<void>;
  /** SIGKILL, then start again on the same port, keeping the data (`keep`) or not. */
  restart(keep: boolean, downMs: number): Promise<void>;
  close(): Promise<void>;
}

/** `extraArgs` follow the defaults and override them (`--appendonly no`: a Redis that persists nothing). */
export async function startOwnRedis(port: number, extraArgs: readonly string[] = []): Promise<OwnRedis> {
  const url = `redis://127.0.0.1:${port}`;
  let dir = mkdtempSync(join(tmpdir(), 'racewire-nemesis-redis-'));
  let child: ChildProcess;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        ...extraArgs,
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    await until(() => redisAnswers(url), `redis-server on ${port}`);
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  process.once('exit', () => child.kill('SIGKILL'));
  return {
    url,
    kill,
    start,
    async restart(keep, downMs) {
      await kill();
      if (!keep) {
        rmSync(dir, { recursive: true, force: true });
        dir = mkdtempSync(join(tmpdir(), 'racewire-nemesis-redis-'));
      }
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
