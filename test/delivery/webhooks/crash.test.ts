import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, expect, it } from 'vitest';
import { nodeArgs } from '../../support/child-build.js';
import { startReceiver, until } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-webhooks-crash-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the child; resolves each JSON line it prints through `onLine`. A node of its own rather than
 * `npx tsx`, so that SIGKILL reaches the process that runs the script (the tsx CLI forks a grandchild). */
function startChild(args: string[], onLine: (msg: Record<string, unknown>) => void): ChildProcess {
  const script = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
  const child = spawn(process.execPath, [...nodeArgs(script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(JSON.parse(line));
  });
  return child;
}

it('delivers every event after a kill -9 with deliveries pending and in flight; duplicates only with the same webhook-id', async () => {
  const total = 200;
  // Slow answers keep attempts in flight when the process dies.
  const receiver = await startReceiver(() => ({ status: 200, hangMs: 20 }));
  const path = join(dir, 'racewire.db');
  let secret = '';
  let appended = false;
  const first = startChild([path, receiver.url, String(total)], (m) => {
    if (typeof m.secret === 'string') secret = m.secret;
    if (m.appended) appended = true;
  });
  const exited = new Promise<NodeJS.Signals | null>((r) => first.on('exit', (_c, signal) => r(signal)));
  await until(() => appended && receiver.received.length >= 20, 'appends and some deliveries', 15_000);
  first.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  const beforeRestart = receiver.received.length;
  expect(beforeRestart).toBeLessThan(total);

  let resumed = false;
  const second = startChild([path, receiver.url, '0'], (m) => {
    if (m.resumed) resumed = true;
  });
  const ids = () => new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  await until(() => resumed && ids().size === total, 'every event delivered after restart', 15_000);
  second.kill('SIGKILL');

  const expected = Array.from({ length: 5 }, (_, race) =>
    Array.from({ length: total / 5 }, (_, k) => `race-${race}:${k + 1}`),
  ).flat();
  // Ids are `<stream>:<seq>@<epoch>`; the file keeps its epoch across the restart, so every id has the same.
  const epochs = new Set([...ids()].map((id) => id.slice(id.indexOf('@') + 1)));
  expect(epochs.size).toBe(1);
  expect([...ids()].map((id) => id.slice(0, id.indexOf('@'))).sort()).toEqual(expected.sort());
  // Any duplicate carries the same id and the same bytes, and every request verifies.
  const bodyById = new Map<string, string>();
  for (const r of receiver.received) {
    const id = String(r.headers['webhook-id']);
    const seen = bodyById.get(id);
    if (seen !== undefined) expect(r.body).toBe(seen);
    bodyById.set(id, r.body);
    new Webhook(secret).verify(r.body, {
      'webhook-id': id,
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
  }
  // Per race, first deliveries arrive in seq order.
  for (let race = 0; race < 5; race++) {
    const firsts = [
      ...new Set(
        receiver.received
          .map((r) => String(r.headers['webhook-id']))
          .filter((id) => id.startsWith(`race-${race}:`)),
      ),
    ];
    expect(firsts.map((id) => Number(id.slice(id.indexOf(':') + 1, id.indexOf('@'))))).toEqual(
      Array.from({ length: total / 5 }, (_, k) => k + 1),
    );
  }
  expect(receiver.received.length).toBeGreaterThanOrEqual(total);
  await receiver.close();
}, 40_000);
