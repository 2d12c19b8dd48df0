/** The body each kind of endpoint gets: the event itself (standard) or a chat message. */
import type { RaceEvent } from '../../../events/envelope.js';
import type { EndpointKind } from '../dispatch/retry-policy.js';
import { discordPayload } from './discord.js';
import { slackPayload } from './slack.js';

const FORMATTERS: Record<EndpointKind, (event: RaceEvent) => unknown> = {
  standard: (event) => event,
  slack: slackPayload,
  discord: discordPayload,
};

/** The exact bytes stored and sent on every attempt; undefined when this kind sends nothing for the event. */
export function formatBody(kind: EndpointKind, event: RaceEvent): string | undefined {
  try {
    const payload = FORMATTERS[kind](event);
    return payload === undefined ? undefined : JSON.stringify(payload);
  } catch {
    // Never let odd event data break the append transaction it runs in.
    return undefined;
  }
}
