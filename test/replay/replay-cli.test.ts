/** `npm run simulator -- --replay FILE`: the standalone replay, as an operator starts it. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { RACE_ID, RECORDING, recordingText } from '../fixtures/recordings/build-awapuni.js';
import { nodeArgs } from '../support/child-build.js';

const main = fileURLToPath(new URL('../../src/serve-simulator.ts', import.meta.url));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
});

describe('the shipped recording', () => {
  it('holds exactly what its builder makes from the real payloads', () => {
    expect(gunzipSync(readFileSync(RECORDING)).toString()).toBe(recordingText());
  });
});

describe('npm run simulator -- --replay FILE', () => {
  it('serves the recording from a chosen instant, and stops cleanly on SIGTERM', async () => {
    child = spawn(
      process.execPath,
      [
        ...nodeArgs(main),
        '--replay',
        RECORDING,
        '--port',
        '0',
        '--from',
        '2025-07-17T00:55:30Z',
        '--speed',
        '1',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: child.stdout! });
    let url: string | undefined;
    for await (const line of lines) {
      const entry = JSON.parse(line) as { msg: string; url?: string };
      if (entry.msg === 'replay listening') {
        url = entry.url;
        break;
      }
    }
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/affiliates\/v1\/racing$/);
    const event = await fetch(`${url}/events/${RACE_ID}?enc=json`);
    expect(event.headers.get('x-replay')).toBe('hit');
    expect(event.headers.get('x-replay-recorded-at')).toBe('2025-07-17T00:55:00.000Z');
    expect(((await event.json()) as { data: { race: { status: string } } }).data.race.status).toBe('Interim');
    const unknown = await fetch(`${url}/events/${RACE_ID}?enc=json&with_will_pays=true`);
    expect([unknown.status, ((await unknown.json()) as { error: string }).error]).toEqual([
      404,
      'not_recorded',
    ]);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
