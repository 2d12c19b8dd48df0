import { describe, expect, it } from 'vitest';
import { discordPayload } from '../../../src/delivery/webhooks/formatters/discord.js';
import { formatBody } from '../../../src/delivery/webhooks/formatters/index.js';
import { slackPayload } from '../../../src/delivery/webhooks/formatters/slack.js';
import { assertDiscordShape, assertSlackShape } from './chat-shapes.js';
import { eventEntry } from './helpers.js';

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
        description: '1. #4 Alpha\n2. #9 Beta\nWin #4 $3.40',
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
