/**
 * The order Vitest starts test files in: the files known to take longest on the wall clock first, in the order
 * listed, then the rest as Vitest orders them (after a run, longest first by its cache; on a fresh clone, largest
 * first). A suite's wall time is at least that of its longest file plus whatever starts after it; started first,
 * the minute-long suites (which mostly wait: a nemesis minute, a full rate window, redis-servers restarting)
 * run beside everything else instead of after it. A stale list only costs time, never a result.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest first, as measured in docs/testing.md ("Where the suite's time goes"), alternating a suite that mostly
 * waits (child nodes, redis-servers, wall-clock windows) with a CPU-bound one, so that with two forks one waits
 * while the other computes.
 */
export const LONGEST = [
  'test/cluster/nemesis.e2e.test.ts',
  'test/embedded/restart-continuity.test.ts',
  'test/cluster/failover.e2e.test.ts',
  'test/http/race-series-day.test.ts',
  'test/cluster/redis-outage.e2e.test.ts',
  'test/replay/replay-service.test.ts',
  'test/cluster/redis-away.e2e.test.ts',
  'test/e2e/board.test.ts',
  'test/simulator/places-paid.test.ts',
  'test/cluster/redis-wipe.e2e.test.ts',
  'test/delivery/webhooks/crash.test.ts',
  'test/sdk/package.e2e.test.ts',
  'test/bench/freshness-drive.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at < 0 ? LONGEST.length : at;
    };
    // Array.prototype.sort is stable: the files not listed keep Vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
