import { EVENT_TYPES } from '@racewire/client/protocol';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { DISCORD_LIMITS, discordPayload } from '../../../src/delivery/webhooks/formatters/discord.js';
import { formatBody } from '../../../src/delivery/webhooks/formatters/index.js';
import { SLACK_LIMITS, slackPayload } from '../../../src/delivery/webhooks/formatters/slack.js';
import type { RaceEvent } from '../../../src/events/envelope.js';

// Every type a chat endpoint may subscribe to, the admin API's test send, and one racewire does not know.
const types = [...EVENT_TYPES, 'webhook.test', 'x.unknown'];
const shaped = fc.record(
  {
    meetingName: fc.string({ maxLength: 400 }),
    raceNumber: fc.oneof(fc.integer(), fc.string()),
    runner: fc.record(
      { runnerNumber: fc.integer(), name: fc.string({ maxLength: 400 }) },
      { requiredKeys: [] },
    ),
    results: fc.array(
      fc.record({ position: fc.integer(), runnerNumber: fc.integer(), name: fc.string({ maxLength: 300 }) }),
      { maxLength: 60 },
    ),
    dividends: fc.array(fc.record({ product: fc.string({ maxLength: 100 }), amount: fc.double() }), {
      maxLength: 60,
    }),
    significant: fc.boolean(),
    // Market events (docs/events.md#market-events).
    stake: fc.double(),
    product: fc.string({ maxLength: 400 }),
    selections: fc.array(fc.record({ runnerNumber: fc.integer(), name: fc.string({ maxLength: 300 }) }), {
      maxLength: 60,
    }),
    flucs: fc.array(fc.record({ timestamp: fc.string(), price: fc.double() }), { maxLength: 60 }),
    from: fc.oneof(fc.double(), fc.string({ maxLength: 300 })),
    to: fc.oneof(fc.double(), fc.string({ maxLength: 300 })),
    changePct: fc.double(),
    pool: fc.string({ maxLength: 400 }),
    milestone: fc.double(),
  },
  { requiredKeys: [] },
);

const eventArb = fc.record({
  type: fc.constantFrom(...types),
  data: fc.oneof(fc.jsonValue(), shaped),
});

it('never throws and always stays within Slack and Discord limits, whatever the event data', () => {
  fc.assert(
    fc.property(eventArb, ({ type, data }) => {
      const event: RaceEvent = {
        id: 'r:1',
        type,
        timestamp: '2026-11-22T00:00:00.000Z',
        stream: 'r',
        seq: 1,
        meetingId: 'm',
        raceId: 'r',
        data,
      };
      const slack = slackPayload(event) as
        | { text: string; blocks: { type: string; text?: { text: string } }[] }
        | undefined;
      const discord = discordPayload(event) as
        | { embeds: { title: string; description?: string; footer: { text: string } }[] }
        | undefined;
      expect(slack === undefined).toBe(discord === undefined);
      if (slack && discord) {
        expect(slack.text.length).toBeLessThanOrEqual(SLACK_LIMITS.text);
        for (const b of slack.blocks) {
          const limit = b.type === 'header' ? SLACK_LIMITS.header : SLACK_LIMITS.section;
          expect(b.text?.text.length ?? 0).toBeLessThanOrEqual(limit);
        }
        const [embed] = discord.embeds;
        expect(embed?.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
        expect(embed?.description?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.description);
        expect(
          (embed?.title.length ?? 0) + (embed?.description?.length ?? 0) + (embed?.footer.text.length ?? 0),
        ).toBeLessThanOrEqual(DISCORD_LIMITS.total);
      }
      expect(formatBody('standard', event)).toBe(JSON.stringify(event));
    }),
    { numRuns: 300 },
  );
});
