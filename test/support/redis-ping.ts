/**
 * Whether a Redis answers, for the tests and for test code that also runs outside vitest (`npm run nemesis`
 * loads test/cluster/nemesis/): so this module must not import vitest, which throws when loaded outside a run.
 */
import { Redis } from 'ioredis';

/** Whether a Redis answers PING at `url` now: a refused or failed connection answers false. */
export async function redisAnswers(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
