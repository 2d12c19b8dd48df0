/**
 * Sends one HTTP POST with node:http(s): a guarded `lookup` (SSRF at connect time), one timeout for the
 * whole attempt, redirects never followed (node:http does not follow them; a 3xx is returned as is), and
 * at most 64 KiB of the response read.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AttemptResult } from './retry-policy.js';

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type Sender = (req: SendRequest) => Promise<AttemptResult>;

const MAX_READ = 64 * 1024;

export interface HttpSenderOptions {
  lookup: LookupFunction;
  timeoutMs: number;
  /**
   * Checks an address literal in a URL: node:net does not call `lookup` for those, so without this an
   * `http://10.0.0.1/` URL would bypass the connect-time check. Returns an error message to refuse.
   */
  checkAddressLiteral?: (address: string) => string | undefined;
}

export function createHttpSender(opts: HttpSenderOptions): Sender & { close(): void } {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup: opts.lookup } as http.AgentOptions),
    'https:': new https.Agent({ keepAlive: true, lookup: opts.lookup } as https.AgentOptions),
  };
  const send: Sender = (req) =>
    new Promise<AttemptResult>((resolve) => {
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return resolve({ headers: {}, body: '', error: 'invalid URL' });
      }
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0) {
        const refused = opts.checkAddressLiteral?.(host);
        if (refused) return resolve({ headers: {}, body: '', error: refused });
      }
      const isHttps = url.protocol === 'https:';
      const agent = isHttps ? agents['https:'] : agents['http:'];
      const lib = isHttps ? https : http;
      let settled = false;
      const finish = (r: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const request = lib.request(
        url,
        {
          method: 'POST',
          agent,
          lookup: opts.lookup,
          headers: {
            ...req.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(req.body),
            'user-agent': 'racewire-webhooks/0.1',
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < MAX_READ) chunks.push(c);
            size += c.length;
          });
          res.on('end', () =>
            finish({
              status: res.statusCode,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_READ),
            }),
          );
          // A response cut short (timeout, reset) ends in 'close' without 'end'.
          res.on('close', () =>
            finish({ status: res.statusCode, headers: res.headers, body: '', error: 'response incomplete' }),
          );
          res.on('error', (err) =>
            finish({ status: res.statusCode, headers: res.headers, body: '', error: err.message }),
          );
        },
      );
      const timer = setTimeout(() => {
        request.destroy(new Error(`timed out after ${opts.timeoutMs} ms`));
      }, opts.timeoutMs);
      request.on('error', (err) => finish({ headers: {}, body: '', error: err.message }));
      request.end(req.body);
    });
  return Object.assign(send, {
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  });
}
