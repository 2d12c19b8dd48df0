/**
 * Slack incoming-webhook message: Block Kit blocks plus a `text` fallback (used in notifications).
 * Limits: header text 150 chars, section text 3000, 50 blocks.
 */
import type { RaceEvent } from '../../../events/envelope.js';
import { chatMessage } from './chat-message.js';

export const SLACK_LIMITS = { header: 150, section: 3000, blocks: 50, text: 4000 } as const;

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
/** Slack mrkdwn control characters; mentions are disabled by escaping `<`, `>` and `&`. */
const escapeMrkdwn = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function slackPayload(event: RaceEvent): Record<string, unknown> | undefined {
  const m = chatMessage(event);
  if (!m) return undefined;
  const body = m.lines.map(escapeMrkdwn).join('\n');
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(m.title, SLACK_LIMITS.header), emoji: false } },
  ];
  if (body) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(body, SLACK_LIMITS.section) } });
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: escapeMrkdwn(`${event.type} · ${event.timestamp} · ${event.id}`) }],
  });
  return {
    text: cut(escapeMrkdwn([m.title, ...m.lines].join('\n')), SLACK_LIMITS.text),
    blocks,
    unfurl_links: false,
  };
}
