/**
 * Start-up failures as an operator meets them: `src/main.ts` as a child process. Each failure is one line
 * on stderr per problem, naming the setting and the fix, with no secret in it; configuration exits 2,
 * anything else 1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../support/child-build.js';

const SECRETS = { ADMIN_TOKEN: 'admintok', REDIS_PASSWORD: 'hunter2' };

function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, nodeArgs('src/main.ts'), {
    env: { ...process.env, LOG_LEVEL: 'silent', SIMULATOR_SPEED: '10', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('start-up failures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-startup-'));
  let blocker: Server | undefined;
  afterAll(() => {
    blocker?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints one line per bad setting with its fix, hides secrets, and exits 2', async () => {
    const { code, stderr } = await start({
      PORT: 'eighty',
      ADMIN_TOKEN: SECRETS.ADMIN_TOKEN,
      STORE: 'redis',
      REDIS_URL: `redis://:${SECRETS.REDIS_PASSWORD}@127.0.0.1:99999`,
    });
    expect(code).toBe(2);
    const lines = stderr.trimEnd().split('\n');
    expect(lines.map((l) => /^racewire: ([A-Z_]+)/.exec(l)?.[1])).toEqual([
      'PORT',
      'REDIS_URL',
      'ADMIN_TOKEN',
    ]);
    for (const line of lines) expect(line).toContain('. Fix: set ');
    expect(stderr).not.toContain(SECRETS.ADMIN_TOKEN);
    expect(stderr).not.toContain(SECRETS.REDIS_PASSWORD);
  }, 20_000);

  it('names DATA_DIR when it cannot be written, and exits 1', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const { code, stderr } = await start({ PORT: '0', DATA_DIR: join(file, 'data') });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `racewire: DATA_DIR=${JSON.stringify(join(file, 'data'))} is not writable (ENOTDIR). Fix: create it writable for this user, or set DATA_DIR to a writable directory\n`,
    );
  }, 20_000);

  it('names PORT when it is taken, and exits 1', async () => {
    blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker!.listen(0, '127.0.0.1', () => resolve((blocker!.address() as { port: number }).port)),
    );
    const { code, stderr } = await start({
      PORT: String(port),
      HOST: '127.0.0.1',
      STORE: 'memory',
      ADMIN_TOKEN: 'a-long-enough-admin-token',
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `racewire: PORT=${port} on HOST=127.0.0.1: the port is already in use. Fix: stop the process that holds it, or set PORT to a free port\n`,
    );
  }, 30_000);
});
