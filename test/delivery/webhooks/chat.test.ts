import { describe, expect, it } from 'vitest';
import { discordPayload } from '../../../src/delivery/webhooks/formatters/discord.js';
import { formatBody } from '../../../src/delivery/webhooks/formatters/index.js';
import { slackPayload } from '../../../src/delivery/webhooks/formatters/slack.js';
import { assertDiscordShape, assertSlackShape } from './chat-shapes.js';
import { eventEntry } from './helpers.js';

const scratching = () =>
  eventEntry('runner.scratched', {
    race: { meetingName: 'Flemington', raceNumber: 3, raceName: 'Melbourne Cup' },
    runner: { runnerNumber: 7, name: 'Fast <@everyone> **Lad**' },
    late: false,
  }).event;

const results = () =>
  eventEntry('race.results', {
    race: { meetingName: 'Addington', raceNumber: 5 },
    kind: 'final',
    results: [
      { position: 1, runnerNumber: 4, name: 'Alpha', marginLength: 0 },
      { position: 2, runnerNumber: 9, name: 'Beta_Boy', marginLength: 1.2 },
    ],
    changes: [],
  }).event;

describe('Slack and Discord formatting', () => {
  it('formats a scratching for Slack with meeting, race and runner, mentions escaped', () => {
    const p = slackPayload(scratching()) as Record<string, unknown>;
    assertSlackShape(p);
    expect(p.blocks).toMatchObject([
      { type: 'header', text: { type: 'plain_text', text: '#7 Fast <@everyone> **Lad** scratched' } },
      { type: 'section', text: { type: 'mrkdwn', text: 'Flemington R3 (Melbourne Cup)' } },
      { type: 'context' },
    ]);
    expect(p.text).toBe('#7 Fast &lt;@everyone&gt; **Lad** scratched\nFlemington R3 (Melbourne Cup)');
  });

  it('formats a scratching for Discord with markdown in names escaped', () => {
    const p = discordPayload(scratching()) as {
      embeds: { title: string; description: string; color: number }[];
    };
    assertDiscordShape(p as unknown as Record<string, unknown>);
    expect(p.embeds[0]).toMatchObject({
      title: '#7 Fast <@everyone> \\*\\*Lad\\*\\* scratched',
      description: 'Flemington R3 (Melbourne Cup)',
      color: 0xf59e0b,
    });
    const quoted = eventEntry('runner.scratched', {
      race: { meetingName: '> [Flemington](https://example.com)', raceNumber: 3 },
      runner: { runnerNumber: 7, name: 'Lad' },
    }).event;
    expect((discordPayload(quoted) as { embeds: { description: string }[] }).embeds[0]?.description).toBe(
      '\\> \\[Flemington\\](https://example.com) R3',
    );
  });

  it('formats results for Discord as one embed without mentions, placings one a line', () => {
    const event = results();
    const p = discordPayload(event) as Record<string, unknown>;
    assertDiscordShape(p);
    expect(p.embeds).toEqual([
      {
        title: 'Final results',
        description: 'Addington R5\n1. #4 Alpha\n2. #9 Beta\\_Boy (1.2L)',
        color: 0x16a34a,
        timestamp: event.timestamp,
        footer: { text: `race.results · ${event.id}` },
      },
    ]);
  });

  it('stays within Discord and Slack limits for oversized data', () => {
    const huge = eventEntry('race.results', {
      race: { meetingName: 'M'.repeat(5000), raceNumber: 1 },
      results: Array.from({ length: 200 }, (_, i) => ({
        position: i + 1,
        runnerNumber: i,
        name: 'N'.repeat(300),
      })),
    }).event;
    assertDiscordShape(discordPayload(huge) as Record<string, unknown>);
    assertSlackShape(slackPayload(huge) as Record<string, unknown>);
  });

  it("sends a tote batch's significant moves only, and nothing when it has none", () => {
    const move = (
      runnerNumber: number,
      from: number,
      to: number,
      changePct: number,
      significant: boolean,
    ) => ({
      runner: { runnerNumber, name: `R${runnerNumber}` },
      market: 'pool_win',
      from,
      to,
      changePct,
      direction: to < from ? 'firming' : 'drifting',
      significant,
    });
    const race = { meetingName: 'Ellerslie', raceNumber: 2 };
    const quiet = eventEntry('odds.pools_changed', { race, changes: [move(1, 4, 4.2, 5, false)] }).event;
    expect(formatBody('slack', quiet)).toBeUndefined();
    expect(formatBody('discord', quiet)).toBeUndefined();
    expect(
      formatBody('slack', eventEntry('odds.pools_changed', { race, changes: 'x' }).event),
    ).toBeUndefined();
    const batch = eventEntry('odds.pools_changed', {
      race,
      changes: [move(1, 4, 4.2, 5, false), move(3, 10, 7, -30, true)],
    }).event;
    expect(
      (discordPayload(batch) as { embeds: { title: string; description: string }[] }).embeds[0],
    ).toMatchObject({ title: 'Tote: 1 price changed, 1 significant' });
    expect(JSON.stringify(slackPayload(batch))).toContain('#3 R3 tote win $10.00 → $7.00 (-30.0%)');
    expect(JSON.stringify(slackPayload(batch))).not.toContain('#1 R1');
  });

  it('sends significant odds moves only, and degrades odd data to a shorter message', () => {
    const quiet = eventEntry('odds.changed', { significant: false }).event;
    expect(formatBody('slack', quiet)).toBeUndefined();
    expect(formatBody('standard', quiet)).toBe(JSON.stringify(quiet));
    const moved = eventEntry('odds.changed', {
      significant: true,
      runner: { name: 'Gamma', runnerNumber: 2 },
      market: 'fixed_win',
      direction: 'firming',
      from: 5,
      to: 3.2,
      changePct: -36,
    }).event;
    expect(
      (discordPayload(moved) as { embeds: { title: string; description: string }[] }).embeds[0],
    ).toMatchObject({
      title: '#2 Gamma firming fixed win $5.00 → $3.20 (-36.0%)',
      // No race in the data: the meeting id stands for it.
      description: 'meeting-1',
    });
    for (const data of [null, 42, 'x', [1, 2], { results: 'nope', dividends: [null, 1] }]) {
      const odd = eventEntry('race.results', data).event;
      assertSlackShape(slackPayload(odd) as Record<string, unknown>);
      assertDiscordShape(discordPayload(odd) as Record<string, unknown>);
    }
    const abandoned = eventEntry('race.abandoned', {
      race: { meetingName: 'Riccarton', raceNumber: 2 },
      from: 'Open',
    }).event;
    expect((slackPayload(abandoned) as { text: string }).text).toBe('Abandoned\nRiccarton R2\nWas Open');
    const test = { ...abandoned, type: 'webhook.test', data: { message: 'racewire test event' } };
    expect((slackPayload(test) as { text: string }).text).toBe(
      'racewire test message\nThis endpoint is set up correctly.',
    );
  });
});
