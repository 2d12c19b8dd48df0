/**
 * Who is connecting: the API key from `Authorization: Bearer <key>`, a `token.<key>` WebSocket subprotocol
 * (browsers cannot set headers) or `?token=<key>`, in that order. Keys are never logged; their names are.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthFailures } from '../../http/auth-failures.js';

export type Scope = 'public' | 'partner';

export interface ApiKey {
  name: string;
  scope: Scope;
}

export interface AuthConfig {
  /** Whether a connection without a key is accepted (public scope, limited per remote address). */
  allowAnonymous: boolean;
  keys: ReadonlyMap<string, ApiKey>;
  /** Unknown keys count against their address; past the limit a key is refused before it is looked up. */
  failures?: AuthFailures;
}

export type Principal = { name: string; scope: Scope; anonymous: boolean };

export type AuthResult =
  | { ok: true; principal: Principal }
  | { ok: false; code: 'unauthorized' | 'rate_limited'; message: string };

export const TOKEN_PROTOCOL_PREFIX = 'token.';

export function extractKey(headers: IncomingHttpHeaders, url: string | undefined): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  const protocols = headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    for (const p of protocols.split(',')) {
      const t = p.trim();
      if (t.startsWith(TOKEN_PROTOCOL_PREFIX) && t.length > TOKEN_PROTOCOL_PREFIX.length) {
        return t.slice(TOKEN_PROTOCOL_PREFIX.length);
      }
    }
  }
  if (url) {
    const q = url.indexOf('?');
    if (q >= 0) {
      const token = new URLSearchParams(url.slice(q + 1)).get('token');
      if (token) return token;
    }
  }
  return undefined;
}

export function authenticate(
  config: AuthConfig,
  key: string | undefined,
  remoteAddress: string | undefined,
): AuthResult {
  if (key === undefined) {
    if (!config.allowAnonymous) return { ok: false, code: 'unauthorized', message: 'an API key is required' };
    return {
      ok: true,
      principal: { name: `anon:${remoteAddress ?? 'unknown'}`, scope: 'public', anonymous: true },
    };
  }
  const address = remoteAddress ?? 'unknown';
  const gate = config.failures?.check(address);
  if (gate && !gate.ok) {
    const seconds = Math.ceil(gate.retryAfterMs / 1000);
    return { ok: false, code: 'rate_limited', message: `too many failed keys; retry in ${seconds} s` };
  }
  const found = config.keys.get(key);
  if (!found) {
    config.failures?.fail(address);
    return { ok: false, code: 'unauthorized', message: 'unknown API key' };
  }
  return { ok: true, principal: { name: found.name, scope: found.scope, anonymous: false } };
}

/**
 * A token bucket on the injected (wall) clock: `rate` tokens per second, holding at most `burst`. A cost
 * larger than the burst (an SSE request for up to 200 channels at one token each, against a burst of 40)
 * is taken from a full bucket and leaves it in debt, repaid at `rate` before the next take succeeds: the key
 * pays what as many WebSocket messages would cost, and the request can still succeed.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes `n` tokens, or none when fewer than `min(n, burst)` are left. */
  take(n = 1): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.rate);
    this.last = t;
    if (this.tokens < Math.min(n, this.burst)) return false;
    this.tokens -= n;
    return true;
  }
}
