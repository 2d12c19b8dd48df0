/**
 * The terminal ticker as a user runs it: a child process against an in-process racewire. A scripted
 * scratching must print a line; Ctrl-C (SIGINT) must close the socket and exit 0; bad arguments exit 2.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../support/child-build.js';
import { type E2eRacewire, pickOpenRace, runNode, startE2e, until } from './harness.js';

const TAIL = 'clients/cli/tail.ts';

/** The ticker from its sources (compiled for the test run: support/child-build.ts). */
const runTail = (args: string[]) => runNode([...nodeArgs(TAIL), ...args]);

describe('the terminal ticker', () => {
  let e2e: E2eRacewire;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    e2e = await startE2e();
  }, 20_000);

  afterAll(async () => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    await e2e?.stop();
  });

  it('prints a line for a scratching in the followed race and exits 0 on SIGINT', async () => {
    const { raceId } = await pickOpenRace(e2e);
    const wsUrl = `${e2e.url.replace('http', 'ws')}/ws`;
    const run = runTail(['--race', raceId, '--url', wsUrl]);
    running.push(run.child);
    await until(() => run.stderr().includes('connected to'), 'the ticker to connect', 15_000);
    // Wait until racewire has the race's document, so the scratching is a change and not the first fetch.
    await until(
      async () => (await fetch(`${e2e.url}/v1/races/${raceId}`)).ok || undefined,
      'the race document',
    );

    const runner = e2e.simulator.world.raceView(raceId).runners.find((r) => !r.scratched)!;
    e2e.simulator.world.scratch(raceId, runner.entrantId);
    const line = await until(
      () =>
        run
          .stdout()
          .split('\n')
          .find((l) => l.includes('runner.scratched')),
      'a runner.scratched line',
    );
    expect(line).toContain(`#${runner.runnerNumber} ${runner.name} scratched`);
    expect(line).not.toContain('\x1b['); // NO_COLOR

    run.child.kill('SIGINT');
    expect(await run.exit).toEqual({ code: 0, signal: null });
  }, 30_000);

  it('exits 1 when the handshake is answered 404, instead of retrying for ever', async () => {
    const run = runTail(['--all', '--url', `${e2e.url.replace('http', 'ws')}/nope`]);
    running.push(run.child);
    expect(await run.exit).toEqual({ code: 1, signal: null });
    expect(run.stderr()).toContain('answered the WebSocket handshake with HTTP 404: check --url and --token');
  }, 15_000);

  it('exits 2 with the usage for a bad argument', async () => {
    const run = runTail(['--race']);
    running.push(run.child);
    expect(await run.exit).toEqual({ code: 2, signal: null });
    expect(run.stderr()).toContain('racewire-tail: --race needs a value');
    expect(run.stderr()).toContain('usage: racewire-tail');
    expect(run.stdout()).toBe('');
  }, 15_000);
});
