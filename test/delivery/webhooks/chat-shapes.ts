/** The documented shapes and limits of Slack and Discord messages, checked on what racewire sends. */
import { expect } from 'vitest';
import { DISCORD_LIMITS } from '../../../src/delivery/webhooks/formatters/discord.js';
import { SLACK_LIMITS } from '../../../src/delivery/webhooks/formatters/slack.js';

/** Checks a Slack incoming-webhook message against Block Kit's documented shape and limits. */
export function assertSlackShape(p: Record<string, unknown>) {
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
export function assertDiscordShape(p: Record<string, unknown>) {
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
