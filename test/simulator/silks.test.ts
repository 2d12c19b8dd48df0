import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { DAY, get, settableClock } from './support.js';

type Rec = Record<string, unknown>;
const SILK_MEMBERS = ['silk_url_64x64', 'silk_url_128x128', 'alt_silk_url_64x64', 'alt_silk_url_128x128'];

describe('silks served by the simulator', () => {
  const clock = settableClock(Date.parse(`${DAY}T06:00:00Z`));
  let sim: Simulator;
  let base: string;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 9, clock, day: DAY, rateLimit: false });
    base = (await sim.listen({ port: 0 })).replace('/affiliates/v1/racing', '');
  });
  afterAll(() => sim.close());

  it('links every runner silk and the race sprite to images it serves, over real HTTP', async () => {
    const race = sim.world.races.find((r) => r.meeting.dayKey === DAY && r.meeting.category === 'H') as {
      id: string;
    };
    const body = (await (await fetch(`${base}/affiliates/v1/racing/events/${race.id}`)).json()) as {
      data: Rec;
    };
    const urls = [
      (body.data.race as Rec).silk_url as string,
      ...(body.data.runners as Rec[]).flatMap((r) => SILK_MEMBERS.map((k) => r[k] as string)),
    ];
    expect(new Set(urls.map((u) => new URL(u).origin))).toEqual(new Set([base]));
    for (const url of new Set(urls)) {
      const res = await fetch(url);
      expect([url, res.status, res.headers.get('content-type')]).toEqual([url, 200, 'image/svg+xml']);
      const svg = await res.text();
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
      expect(svg).toMatch(/<\/svg>$/);
    }
  });

  it('describes the silk it draws in silk_colours', async () => {
    const race = sim.world.races.find((r) => r.meeting.dayKey === DAY) as {
      id: string;
      runners: { silk: { body: string; trim: string } }[];
    };
    const runners = (await get(sim, `/events/${race.id}`)).json().data.runners as Rec[];
    runners.forEach((r, i) => {
      const silk = race.runners[i]?.silk as { body: string; trim: string };
      expect((r.silk_colours as string).toLowerCase()).toContain(silk.body);
      expect(r.silk_colours as string).toContain(silk.trim);
    });
  });

  it('uses a configured silk base instead of the request host', async () => {
    const other = await createSimulator({
      seed: 9,
      clock,
      day: DAY,
      rateLimit: false,
      silkBaseUrl: 'http://sim.example:9000/',
    });
    try {
      const race = other.world.races.find((r) => r.meeting.dayKey === DAY) as { id: string };
      const runner = (await get(other, `/events/${race.id}`)).json().data.runners[0];
      expect(runner.silk_url_64x64).toMatch(
        /^http:\/\/sim\.example:9000\/silks\/[a-z]+-[0-9a-f]{6}-[0-9a-f]{6}_64x64\.svg$/,
      );
    } finally {
      await other.close();
    }
  });

  it('answers 404 for a silk it does not draw', async () => {
    for (const path of [
      '/silks/plaid-000000-ffffff_64x64.svg',
      '/silks/hoops-000000-ffffff_999x999.svg',
      '/silks/sprites/nope_SPRITE_64x64.svg',
    ]) {
      expect((await get(sim, path)).status).toBe(404);
    }
  });
});
