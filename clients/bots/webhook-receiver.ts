/**
 * A minimal racewire webhook consumer: verifies every request with the `standardwebhooks` package, drops
 * duplicates by webhook-id (delivery is at least once), answers 2xx fast and handles the event after.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=3000 npx tsx clients/bots/webhook-receiver.ts
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export interface RacewireEvent {
  id: string;
  type: string;
  timestamp: string;
  stream: string;
  seq: number;
  meetingId: string;
  raceId?: string;
  data: unknown;
}

export interface ReceiverOptions {
  /** The endpoint's `whsec_...` secret. During a rotation either the old or the new one verifies. */
  secret: string;
  onEvent: (event: RacewireEvent) => void | Promise<void>;
  /** How many recent webhook-ids to remember for de-duplication. @default 10000 */
  remember?: number;
  maxBodyBytes?: number;
}

export function createWebhookReceiver(opts: ReceiverOptions): http.Server {
  const wh = new Webhook(opts.secret);
  const seen = new Set<string>();
  const remember = opts.remember ?? 10_000;
  const maxBody = opts.maxBodyBytes ?? 1024 * 1024;
  return http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      // Verify the exact bytes received, before parsing anything.
      const body = Buffer.concat(chunks).toString('utf8');
      let event: RacewireEvent;
      try {
        event = wh.verify(body, req.headers as Record<string, string>) as RacewireEvent;
      } catch (err) {
        const status = err instanceof WebhookVerificationError ? 401 : 400;
        return void res.writeHead(status).end();
      }
      const id = String(req.headers['webhook-id']);
      res.writeHead(204).end();
      if (seen.has(id)) return;
      seen.add(id);
      if (seen.size > remember) seen.delete(seen.values().next().value as string);
      void Promise.resolve(opts.onEvent(event)).catch((err: unknown) =>
        console.error('event handler failed', err),
      );
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('set WEBHOOK_SECRET to the endpoint secret (whsec_...)');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 3000);
  createWebhookReceiver({
    secret,
    onEvent: (e) =>
      console.log(`${e.timestamp} ${e.type} ${e.raceId ?? e.meetingId} ${JSON.stringify(e.data)}`),
  }).listen(port, () => console.log(`listening on :${port}`));
}
