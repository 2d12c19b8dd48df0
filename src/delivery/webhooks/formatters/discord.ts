/**
 * Discord webhook message: one embed (colour, timestamp), no mentions (`allowed_mentions: { parse: [] }`),
 * upstream text escaped so a runner's name cannot bold, strike or link anything, kept within Discord's
 * limits: title 256, description 4096, 25 fields, footer 2048, 6000 in all.
 */
import type { Tone } from '@racewire/client/event-text';
import type { RaceEvent } from '../../../events/envelope.js';
import { chatMessage } from './chat-message.js';

export const DISCORD_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  footer: 2048,
  total: 6000,
} as const;

const COLOURS: Record<Tone, number> = {
  info: 0x3b82f6,
  result: 0x16a34a,
  up: 0x16a34a,
  alert: 0xf59e0b,
  down: 0xdc2626,
};
const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
/** Discord markdown's emphasis, code, spoiler and masked-link characters, and a quote's `>`, shown as themselves. */
const escapeMarkdown = (s: string) => s.replace(/[\\*_~`|[\]]/g, (c) => `\\${c}`).replace(/^>/gm, '\\>');

export function discordPayload(event: RaceEvent): Record<string, unknown> | undefined {
  const m = chatMessage(event);
  if (!m) return undefined;
  const title = cut(escapeMarkdown(m.title), DISCORD_LIMITS.title);
  const footer = cut(`${event.type} · ${event.id}`, DISCORD_LIMITS.footer);
  // The description takes what is left of the 6000 total after title and footer.
  const room = Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.total - title.length - footer.length);
  const description = cut(m.lines.map(escapeMarkdown).join('\n'), room);
  const embed: Record<string, unknown> = {
    title,
    color: COLOURS[m.tone],
    timestamp: event.timestamp,
    footer: { text: footer },
  };
  if (description) embed.description = description;
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}

/** Discord answers the created message (and real errors) only with `?wait=true`. */
export function discordUrl(url: string): string {
  const u = new URL(url);
  u.searchParams.set('wait', 'true');
  return u.toString();
}
