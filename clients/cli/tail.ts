/**
 * The terminal ticker: `npm run tail -- [--race ID | --meeting ID | --all] [--events TYPES] [--url URL]
 * [--token KEY]`. Prints one line per event as it happens; Ctrl-C closes the socket and exits 0. Bad
 * arguments exit 2 with the usage; a server that refuses us for good (bad key, unknown channel) exits 1.
 */

import { RacewireClient, type WebSocketFactory } from '@racewire/client';
import WebSocket from 'ws';
import { ArgsError, parseArgs, USAGE } from './args.js';
import { formatLine, useColour } from './format.js';

/** How long a clean close may take before we exit anyway. */
const CLOSE_GRACE_MS = 1_000;

function main(): void {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ArgsError)) throw err;
    process.stderr.write(`tail: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const { channel, types, url, token } = parsed.options;
  const colour = useColour(process.stdout, process.env);
  const wanted = types ? new Set(types) : undefined;
  const note = (msg: string) => process.stderr.write(`tail: ${msg}\n`);

  const client = new RacewireClient({ url, token, WebSocket: WebSocket as unknown as WebSocketFactory });
  let exiting = false;
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    const timer = setTimeout(() => process.exit(code), CLOSE_GRACE_MS);
    client.on('close', () => {
      clearTimeout(timer);
      process.exit(code);
    });
    client.close();
  };

  client.on('open', () => note(`connected to ${url}, following ${channel}`));
  client.on('event', (event) => {
    if (wanted && !wanted.has(event.type)) return;
    process.stdout.write(`${formatLine(event, colour)}\n`);
  });
  let noted = false;
  client.on('document', (stream, document) => {
    // racewire accepts any race id: a race it has not fetched (or does not know) has no document yet.
    if (noted || channel !== `race:${stream}`) return;
    noted = true;
    if (document === null) note(`no data for race ${stream} yet (not fetched yet, or unknown)`);
  });
  client.on('resync', (stream, reason) => note(`resynchronising ${stream} (${reason})`));
  client.on('close', (code, reason, again) => {
    if (exiting) return;
    if (again) note(`connection closed (${code}${reason ? ` ${reason}` : ''}); reconnecting`);
    else {
      note(`connection closed for good (${code}${reason ? ` ${reason}` : ''})`);
      exit(1);
    }
  });
  client.on('error', (code, message) => {
    note(`server: ${code}: ${message}`);
    if (code === 'unknown_channel' || code === 'bad_request') exit(1);
  });

  process.on('SIGINT', () => exit(0));
  process.on('SIGTERM', () => exit(0));
  // The firehose filters on the server; race and meeting channels carry everything, filtered here.
  client.subscribe(channel, channel === 'firehose' && types ? { types } : undefined);
  client.connect();
}

main();
