import { afterEach, describe, expect, it } from 'vitest';
import { DISCORD_LIMITS, discordPayload } from '../../../src/delivery/webhooks/formatters/discord.js';
import { formatBody } from '../../../src/delivery/webhooks/formatters/index.js';
import { SLACK_LIMITS, slackPayload } from '../../../src/delivery/webhooks/formatters/slack.js';
import { type Harness, startHarness } from './harness.js';
import { eventEntry, type Received, until } from './helpers.js';

const scratching = () =>
  eventEntry('runner.scratched', {
    meetingName: 'Flemington',
    raceNumber: 3,
    raceName: 'Melbourne Cup',
    runner: { runnerNumber: 7, name: 'Fast <@everyone> Lad' },
  }).event;

const results = () =>
  eventEntry('race.results', {
    race: { meeting_name: 'Addington', race_number: 5 },
    results: [
      { position: 1, runnerNumber: 4, name: 'Alpha' },
      { position: 2, runner_number: 9, name: 'Beta' },
    ],
    dividends: [{ product: 'Win', amount: 3.4, positions: [{ runnerNumber: 4 }] }],
  }).event;

/** Checks a Slack incoming-webhook message against Block Kit's documented shape and limits. */
function assertSlackShape(p: Record<string, unknown>) {
  expect(typeof p.text).toBe('string');
  const blocks = p.blocks as { type: string; text?: { type: string; text: string }; elements?: unknown[] }[];
  expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  for (const b of blocks) {
    expect(['header', 'section', 'context']).toContain(b.type);
    if (b.type === 'header') {
      expect(b.text?.type).toBe('plain_text');
      expect(b.text?.text.length).toBeLessThanOrEqual(SLACK_LIMITS.header);
    }
    if (b.type === 'section') {
      expect(b.text?.type).toBe('mrkdwn');
      expect(b.text?.text.length).toBeLessThanOrEqual(SLACK_LIMITS.section);
    }
  }
}

/** Checks a Discord webhook message against the documented embed limits. */
function assertDiscordShape(p: Record<string, unknown>) {
  expect(p.allowed_mentions).toEqual({ parse: [] });
  const embeds = p.embeds as {
    title?: string;
    description?: string;
    fields?: unknown[];
    footer?: { text: string };
    color?: number;
    timestamp?: string;
  }[];
  expect(embeds.length).toBeGreaterThanOrEqual(1);
  expect(embeds.length).toBeLessThanOrEqual(10);
  let total = 0;
  for (const e of embeds) {
    expect(e.title?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.title);
    expect(e.description?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(e.fields?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.fields);
    expect(Number.isInteger(e.color)).toBe(true);
    expect(Number.isNaN(Date.parse(e.timestamp ?? ''))).toBe(false);
    total += (e.title?.length ?? 0) + (e.description?.length ?? 0) + (e.footer?.text.length ?? 0);
  }
  expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.total);
}

describe('Slack and Discord formatting', () => {
  it('formats a scratching for Slack with meeting, race and runner, mentions escaped', () => {
    const p = slackPayload(scratching()) as Record<string, unknown>;
    assertSlackShape(p);
    expect(p.blocks).toMatchObject([
      { type: 'header', text: { type: 'plain_text', text: 'Scratched: #7 Fast <@everyone> Lad' } },
      { type: 'section', text: { type: 'mrkdwn', text: 'Flemington R3 (Melbourne Cup)' } },
      { type: 'context' },
    ]);
    expect(p.text).toBe('Scratched: #7 Fast &lt;@everyone&gt; Lad\nFlemington R3 (Melbourne Cup)');
  });

  it('formats results with dividends for Discord as one embed without mentions', () => {
    const event = results();
    const p = discordPayload(event) as Record<string, unknown>;
    assertDiscordShape(p);
    expect(p.embeds).toEqual([
      {
        title: 'Results: Addington R5',
        description: '1. #4 Alpha\n2. #9 Beta\nWin 4: 3.4',
        color: 0x16a34a,
        timestamp: event.timestamp,
        footer: { text: `race.results · ${event.id}` },
      },
    ]);
  });

  it('stays within Discord and Slack limits for oversized data', () => {
    const huge = eventEntry('race.results', {
      meetingName: 'M'.repeat(5000),
      results: Array.from({ length: 200 }, (_, i) => ({
        position: i + 1,
        runnerNumber: i,
        name: 'N'.repeat(300),
      })),
    }).event;
    assertDiscordShape(discordPayload(huge) as Record<string, unknown>);
    assertSlackShape(slackPayload(huge) as Record<string, unknown>);
  });

  it('sends significant odds moves only, and degrades unknown shapes to a generic message', () => {
    const quiet = eventEntry('odds.changed', { significant: false }).event;
    expect(formatBody('slack', quiet)).toBeUndefined();
    expect(formatBody('standard', quiet)).toBe(JSON.stringify(quiet));
    const moved = eventEntry('odds.changed', {
      significant: true,
      runner: { name: 'Gamma', runnerNumber: 2 },
      from: 5,
      to: 3.2,
    }).event;
    expect(
      (discordPayload(moved) as { embeds: { title: string; description: string }[] }).embeds[0],
    ).toMatchObject({
      title: 'Odds move: #2 Gamma',
      description: 'meeting meeting-1 race race-1\n5 -> 3.2',
    });
    for (const data of [null, 42, 'x', [1, 2], { results: 'nope', dividends: [null, 1] }]) {
      const odd = eventEntry('race.results', data).event;
      assertSlackShape(slackPayload(odd) as Record<string, unknown>);
      assertDiscordShape(discordPayload(odd) as Record<string, unknown>);
    }
    const abandoned = eventEntry('race.abandoned', { reason: 'track' }).event;
    expect((slackPayload(abandoned) as { text: string }).text).toBe(
      'Abandoned: meeting meeting-1 race race-1\ntrack',
    );
  });
});

describe('Slack and Discord delivery', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('posts Slack messages at most once a second per URL and honours Slack 429 Retry-After', async () => {
    h = await startHarness({
      respond: (_r, i) =>
        i === 1 ? { status: 429, headers: { 'retry-after': '30' } } : { status: 200, body: 'ok' },
    });
    await h.createEndpoint({ kind: 'slack' });
    const t0 = h.clock.now();
    h.service.enqueueForEntries([
      eventEntry('runner.scratched', {}, { raceId: 'a' }),
      eventEntry('runner.scratched', {}, { raceId: 'b' }),
      eventEntry('runner.scratched', {}, { raceId: 'c' }),
    ]);
    await until(() => h.receiver.received.length === 1 && h.service.stats().inFlight === 0, 'first message');
    await h.clock.advance(999);
    expect(h.receiver.received).toHaveLength(1);
    await h.clock.advance(1);
    await until(
      () => h.receiver.received.length === 2 && h.service.stats().inFlight === 0,
      'second message (429)',
    );
    // Rate limited: nothing to this URL for 30 s.
    await h.clock.advance(29_999);
    expect(h.receiver.received).toHaveLength(2);
    await h.clock.advance(1);
    await until(() => h.receiver.received.length === 3 && h.service.stats().inFlight === 0, 'third');
    await h.clock.advance(1000);
    await until(() => h.service.stats().deliveries.delivered === 3, 'all delivered');
    expect(h.clock.now() - t0).toBe(32_000);
    for (const r of h.receiver.received) assertSlackShape(JSON.parse(r.body));
    expect(h.receiver.received[0]?.headers['webhook-signature']).toBeUndefined();
  });

  it('posts Discord embeds with ?wait=true and honours retry_after from the body', async () => {
    h = await startHarness({
      respond: (_r, i) =>
        i === 0
          ? {
              status: 429,
              headers: { 'content-type': 'application/json' },
              body: '{"message":"You are being rate limited.","retry_after":2.5,"global":false}',
            }
          : { status: 200, body: '{"id":"1"}' },
    });
    await h.createEndpoint({ kind: 'discord' });
    h.service.enqueueForEntries([
      eventEntry('race.results', { results: [{ position: 1, runnerNumber: 1, name: 'A' }] }),
    ]);
    await until(() => h.receiver.received.length === 1 && h.service.stats().inFlight === 0, 'first attempt');
    await h.clock.advance(2_499);
    expect(h.receiver.received).toHaveLength(1);
    await h.clock.advance(1);
    await until(() => h.service.stats().deliveries.delivered === 1, 'delivered');
    const r = h.receiver.received[1] as Received;
    expect(r.url).toBe('/hook?wait=true');
    assertDiscordShape(JSON.parse(r.body));
  });

  it('disables a Discord endpoint that answers 404 and a Slack one that answers 410', async () => {
    h = await startHarness({
      respond: (r) => ({ status: r.url.startsWith('/discord') ? 404 : 410, body: 'no_service' }),
    });
    const discord = await h.createEndpoint({ kind: 'discord', url: `${h.receiver.url}/discord` });
    const slack = await h.createEndpoint({ kind: 'slack', url: `${h.receiver.url}/slack` });
    h.service.enqueueForEntries([eventEntry('race.abandoned', {})]);
    await until(() => h.service.stats().outcomes.disable === 2, 'both disabled');
    for (const { endpoint } of [discord, slack]) {
      const got = (
        await h.app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${endpoint.id}` })
      ).json();
      expect(got.enabled).toBe(false);
    }
  });
});
