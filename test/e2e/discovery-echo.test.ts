/**
 * racewire against a simulator listening on a port (RACING_API_URL), as against an upstream that is not
 * racewire's own: one whose /meetings echo holds only enc, date_from and date_to is still listed and its
 * races polled; one whose /meetings answers another day makes /readyz and /v1/ops say discovery is failing,
 * with the code and the message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { type Racewire, startRacewire } from '../../src/runtime.js';
import type { FaultKind } from '../../src/simulator/faults.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { until } from './harness.js';

let sim: Simulator | undefined;
let racewire: Racewire | undefined;
afterEach(async () => {
  await racewire?.stop();
  await sim?.close();
  racewire = undefined;
  sim = undefined;
});

interface DiscoveryDetail {
  polling: boolean;
  failing: { date: string; code: string; message: string }[];
  alarms: unknown[];
}
type Ready = { checks: Record<string, { ok: boolean; detail?: DiscoveryDetail }> };

/** A simulator on a port with `fault` on every /meetings list, and racewire polling it. */
async function start(fault: FaultKind) {
  const events: string[] = [];
  sim = await createSimulator({
    seed: 1,
    clock: systemClock,
    rateLimit: false,
    onApiRequest: ({ path }) => {
      if (path.startsWith('/events/')) events.push(path.slice('/events/'.length));
    },
  });
  sim.faults.inject({ kind: fault, count: 1_000_000, path: /\/meetings$/ });
  const url = await sim.listen();
  const config = loadConfig({
    PORT: '0',
    STORE: 'memory',
    LOG_LEVEL: 'silent',
    RACING_API_URL: url,
    DISCOVERY_INTERVAL_MS: '1000',
  });
  racewire = await startRacewire({ config, listen: false });
  const get = async (path: string) => {
    const res = await (racewire as Racewire).app.inject({ method: 'GET', url: path });
    return { status: res.statusCode, body: res.body, json: <T>() => res.json() as T };
  };
  return { events, get, world: sim.world };
}

describe('discovery against an upstream that is not racewire’s simulator', () => {
  it('finds the meetings and polls a race when the /meetings echo holds only enc, date_from and date_to', async () => {
    const { events, get, world } = await start('echo_minimal');
    const polled = await until(
      async () => {
        const raceId = events.find((id) => world.race(id));
        if (!raceId) return undefined;
        return (await get(`/v1/races/${raceId}`)).status === 200 ? raceId : undefined;
      },
      'a race polled and its document served',
      30_000,
    );
    const { meetings } = (await get('/v1/meetings')).json<{ meetings: { races: { raceId: string }[] }[] }>();
    expect(meetings.flatMap((m) => m.races.map((r) => r.raceId))).toContain(polled);
    // /readyz answers from checks run every wall second: wait for the first run since the node polls.
    const discovery = await until(
      async () => {
        const check = (await get('/readyz')).json<Ready>().checks.discovery;
        return check?.detail?.polling ? check : undefined;
      },
      '/readyz naming this node as polling',
      10_000,
    );
    expect(discovery).toEqual({ ok: true, detail: { polling: true, failing: [], alarms: [] } });
    const metrics = (await get('/metrics')).body;
    expect(metrics).toMatch(/racewire_upstream_echo_omitted_total\{member="limit"\} [1-9]/);
    expect(metrics).toMatch(/racewire_discovery_failing_days 0/);
  }, 40_000);

  it('says discovery is failing, and why, when /meetings answers another day', async () => {
    const { get } = await start('wrong_day');
    // Yesterday is answered with today's meetings (and today with tomorrow's, once they are listed).
    const failing = await until(
      async () => {
        const res = await get('/readyz');
        const day = res.json<Ready>().checks.discovery?.detail?.failing?.[0];
        return res.status === 503 && day ? day : undefined;
      },
      '/readyz failing on discovery',
      30_000,
    );
    expect(failing.code).toBe('DISCOVERY_WRONG_DAY');
    expect(failing.message).toMatch(
      new RegExp(
        `^/meetings for ${failing.date} at offset 0 answered with meeting \\S+ dated \\S+: it cannot be that day$`,
      ),
    );
    const ops = (await get('/v1/ops')).json<{ discovery: { ok: boolean; failing: unknown[] } }>();
    expect(ops.discovery.ok).toBe(false);
    expect(ops.discovery.failing).toContainEqual(
      expect.objectContaining({ date: failing.date, code: 'DISCOVERY_WRONG_DAY' }),
    );
    expect((await get('/metrics')).body).toMatch(/racewire_discovery_failing_days [1-3]/);
  }, 40_000);
});
