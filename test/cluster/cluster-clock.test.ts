/**
 * The cluster suites' clock: the simulator in the test process and the nodes it starts see the same moved
 * time, a fixed time of day whenever the suite runs.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { CLUSTER_TIME_OF_DAY_MS, clusterNow, clusterOffsetMs, shiftedDateEnv } from './cluster-clock.js';

const run = promisify(execFile);
const DAY = 86_400_000;

it('is 15:30 UTC of the day when the process loaded it, moving on with the system clock', () => {
  const timeOfDay = clusterNow() % DAY;
  expect(timeOfDay).toBeGreaterThanOrEqual(CLUSTER_TIME_OF_DAY_MS);
  // A test fork lives minutes, not hours.
  expect(timeOfDay).toBeLessThan(CLUSTER_TIME_OF_DAY_MS + 3_600_000);
  expect(Math.abs(clusterOffsetMs)).toBeLessThan(DAY);
});

it("moves a node process's Date by the same offset, and leaves given instants alone", async () => {
  const before = clusterNow();
  const { stdout } = await run(
    process.execPath,
    [
      '-e',
      'console.log(JSON.stringify([Date.now(), new Date().getTime(), Date.parse(Date()), new Date(0).getTime(), new Date() instanceof Date]))',
    ],
    { env: { ...process.env, ...shiftedDateEnv() } },
  );
  const after = clusterNow();
  const [now, constructed, called, given, instance] = JSON.parse(stdout) as [
    number,
    number,
    number,
    number,
    boolean,
  ];
  for (const t of [now, constructed]) {
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
  }
  // `Date()` has whole seconds.
  expect(called).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  expect(called).toBeLessThanOrEqual(after);
  expect(given).toBe(0);
  expect(instance).toBe(true);
});
