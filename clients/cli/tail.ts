/**
 * The terminal ticker, `racewire-tail [--race ID | --meeting ID | --all] [--events TYPES] [--url URL]
 * [--token KEY]`. Prints one line per event on stdout as it happens, and nothing else there: messages about
 * the connection go to stderr, so `racewire-tail --all > events.log` holds only events. Ctrl-C closes the
 * socket and exits 0. Bad arguments exit 2 with the usage; a server that refuses us for good (bad key,
 * unknown channel) exits 1. A server that cannot be reached is named with the reason, and retried.
 */
import { RacewireClient, type WebSocketFactory } from '@racewire/client';
import WebSocket from 'ws';
import { ArgsError, parseArgs, USAGE } from './args.js';
import { formatFolded, formatLine, useColour } from './format.js';
import { refusedForGood } from './handshake.js';
import { OddsFolder } from './odds-fold.js';

/** How long a clean close may take before we exit anyway. */
const CLOSE_GRACE_MS = 1_000;

function main(): void {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ArgsError)) throw err;
    process.stderr.write(`racewire-tail: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const { channel, types, url, token, compact } = parsed.options;
  const colour = useColour(process.stdout, process.env);
  const wanted = types ? new Set(types) : undefined;
  const note = (msg: string) => process.stderr.write(`racewire-tail: ${msg}\n`);

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

  let open = false;
  /** The last failure printed while unreachable: the same one is not printed again on every retry. */
  let lastFailure: string | undefined;
  let socketError: string | undefined;
  client.on('open', () => {
    open = true;
    lastFailure = undefined;
    note(`connected to ${url}, following ${channel}`);
  });
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const folder = compact ? new OddsFolder() : undefined;
  if (folder) {
    setInterval(() => {
      for (const folded of folder.flush()) print(formatFolded(folded, colour));
    }, 1000).unref();
  }
  client.on('event', (event) => {
    if (wanted && !wanted.has(event.type)) return;
    for (const e of folder ? folder.push(event) : [event]) print(formatLine(e, colour));
  });
  let noted = false;
  client.on('document', (stream, document) => {
    // racewire accepts any race id: a race it has not fetched (or does not know) has no document yet.
    if (noted || channel !== `race:${stream}`) return;
    noted = true;
    if (document === null) note(`no data for race ${stream} yet (not fetched yet, or unknown)`);
  });
  client.on('resync', (stream, reason) => note(`resynchronising ${stream} (${reason})`));
  client.on('socketError', (message) => {
    socketError = message;
  });
  client.on('close', (code, reason, again) => {
    if (exiting) return;
    const why = socketError ?? `closed with code ${code}${reason ? ` (${reason})` : ''}`;
    const status = refusedForGood(socketError);
    socketError = undefined;
    if (status !== undefined) {
      note(`${url} answered the WebSocket handshake with HTTP ${status}: check --url and --token`);
      exit(1);
    } else if (!again) {
      note(`${url} refused the connection for good: ${why}`);
      exit(1);
    } else if (open) {
      open = false;
      note(`lost the connection to ${url}: ${why}; reconnecting`);
    } else if (why !== lastFailure) {
      lastFailure = why;
      note(`cannot connect to ${url}: ${why}; retrying until it answers (Ctrl-C to stop)`);
    }
  });
  client.on('error', (code, message) => {
    note(`server: ${code}: ${message}`);
    if (code === 'unknown_channel' || code === 'bad_request') exit(1);
  });

  process.on('SIGINT', () => exit(0));
  process.on('SIGTERM', () => exit(0));
  // The firehose filters on the server; race and meeting channels carry everything, filtered here.
  client.subscribe(channel, channel === 'firehose' && types ? { filter: { types } } : {});
  client.connect();
}

main();
