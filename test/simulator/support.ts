/** Helpers for the simulator tests: a settable clock and a JSON GET through fastify's inject. */
import type { Clock } from '../../src/clock.js';
import type { Simulator } from '../../src/simulator/index.js';

export const DAY = '2026-11-22';
export const API = '/affiliates/v1/racing';

/** A clock that can be set to any instant, back or forth (to probe a payload at T-1 and at T). */
export function settableClock(start: number): Clock & { set(t: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: () => new Promise<void>(() => {}),
    set: (t: number) => {
      now = t;
    },
  };
}

export async function get(sim: Simulator, url: string) {
  const res = await sim.app.inject({
    method: 'GET',
    url: /^\/(__sim|silks)\b/.test(url) ? url : `${API}${url}`,
  });
  return { status: res.statusCode, headers: res.headers, body: res.body, json: () => JSON.parse(res.body) };
}
