/**
 * `npm run tail -- --all --events market.*,...` as a user runs it, against racewire over its simulator
 * with the market data asked for: market events reach the ticker through the firehose, and only those.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../support/child-build.js';
import { type E2eRacewire, runNode, startE2e, until } from './harness.js';

const MARKET = ['market.big_bet', 'market.money_flow', 'odds.plunge', 'odds.drift', 'pool.total'];

describe('the ticker on market events', () => {
  let e2e: E2eRacewire;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    // Many races in their last half hour at once at x60, so market news comes within seconds.
    e2e = await startE2e({
      SIMULATOR_SPEED: '60',
      MARKET_DATA: 'always',
      MARKET_THRESHOLDS: 'bigBetMinStake=500',
    });
  }, 20_000);

  afterAll(async () => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    await e2e?.stop();
  });

  it('prints market events of every race, and nothing else', async () => {
    const wsUrl = `${e2e.url.replace('http', 'ws')}/ws`;
    const run = runNode([
      ...nodeArgs('clients/cli/tail.ts'),
      '--all',
      '--events',
      'market.*,odds.plunge,odds.drift,pool.total',
      '--url',
      wsUrl,
    ]);
    running.push(run.child);
    const lines = await until(
      () => {
        const got = run.stdout().split('\n').filter(Boolean);
        return got.length >= 3 ? got : undefined;
      },
      'three market lines',
      60_000,
    );
    for (const line of lines) expect(MARKET.some((t) => line.includes(` ${t} `))).toBe(true);
    run.child.kill('SIGINT');
    expect(await run.exit).toEqual({ code: 0, signal: null });
  }, 90_000);
});
