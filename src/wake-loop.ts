/**
 * A loop that does one step, then sleeps on the clock for as long as the step asks, unless kicked: the
 * shape of the webhook dispatcher, the Redis feed reader and the retention job. A kick during a step makes the next step run at
 * once, so no wake-up is lost between a step's reads and its sleep.
 */
import type { Clock } from './clock.js';
import { WOKEN } from './wake-reason.js';

export interface WakeLoop {
  start(): void;
  /** Resolves once the current step has finished; no step starts after. */
  stop(): Promise<void>;
  kick(): void;
}

/** `step` answers how long to sleep (ms) before the next step; it must not reject. */
export function createWakeLoop(clock: Clock, step: () => Promise<number>): WakeLoop {
  let running = false;
  let kicked = false;
  let wake = new AbortController();
  let done: Promise<void> = Promise.resolve();

  async function loop(): Promise<void> {
    while (running) {
      // Made before the step, so that a kick during it cuts the sleep short.
      wake = new AbortController();
      const { signal } = wake;
      const wait = await step();
      if (kicked || wait <= 0) {
        kicked = false;
        await new Promise<void>((r) => setImmediate(r));
        continue;
      }
      try {
        await clock.sleep(wait, signal);
      } catch {
        // Woken early by kick().
      }
      kicked = false;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      done = loop();
    },
    async stop() {
      running = false;
      wake.abort();
      await done;
    },
    kick() {
      kicked = true;
      wake.abort(WOKEN);
    },
  };
}
