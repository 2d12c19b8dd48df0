/**
 * An audit of fencing from outside the nodes: it watches every command the nemesis's Redis runs (MONITOR,
 * which also shows the commands a Lua script runs, tagged `lua`, right after the script's call) and keeps
 * the fence mark as the server does: each INCR of the fence key issues the next token, each SET of it raises
 * it. An append script (7 keys, KEYS[5] the fence key) carrying a token below the mark must write no entry
 * (XADD to a `:log` stream). An outbox claim (claim.lua on one endpoint's keys, ARGV[5] the token) is fenced
 * in two steps (docs/webhooks.md): its pass reads the mark first (a GET of the fence key on the same
 * connection), and the script checks the endpoint's own mark (`fence` in its hash, raised by claims); one
 * carrying a token below either must claim nothing (HINCRBY ... in_flight). Either would be a write from a
 * node that had lost the lease. A claim whose token is below the mark only because the mark moved after its
 * pass read it is counted apart (`window`): the one moment the outbox's per-endpoint claims leave open.
 *
 * MONITOR sees nothing while the audit is away (a Redis restart, until it connects again), and the nodes
 * take tokens at once on a restarted Redis: each connection first reads the mark (a GET pipelined before
 * MONITOR, so no command comes between them). Counting only the INCRs it saw, the audit's mark fell behind
 * the server's by every token taken before it reconnected, and a write with a token below the server's mark
 * but not below its own was neither counted stale nor, had it written, a violation.
 *
 * Both scripts are known by their SHA (EVALSHA's first argument, or the SHA of EVAL's source after a
 * NOSCRIPT), not by their shape: recognised by its seven keys, the append went unaudited from the day it
 * took an eighth (the patches list), and a 30-minute run then said "0 fenced appends audited" and passed.
 */
import { createHash } from 'node:crypto';
import { connect as connectTcp, type Socket } from 'node:net';
import { endpointScriptSource } from '../../../src/delivery/webhooks/redis/scripts.js';
import { appendScript } from '../../../src/store/redis/append-script.js';

const sha1 = (source: string) => createHash('sha1').update(source).digest('hex');
const CLAIM_SHA = sha1(endpointScriptSource('claim'));

interface Call {
  kind: 'append' | 'claim';
  token: number;
  markAt: number;
  wrote: boolean;
}

export interface FenceAudit {
  /** After a restart without persistence: the counter starts again from nothing. */
  serverWiped(): void;
  /** Connects again after a restart (MONITOR ends with the server). */
  reconnect(): Promise<void>;
  /** Calls audited, and those carrying a token below the mark (stale: each must have written nothing). */
  stats(): {
    appends: number;
    claims: number;
    stale: { append: number; claim: number };
    /** Claims whose token was below the mark only because it moved after their pass read it. */
    window: number;
    violations: string[];
  };
  close(): void;
}

export async function startFenceAudit(url: string, fenceKey: string): Promise<FenceAudit> {
  let mark = 0;
  let open: Call | undefined;
  let appends = 0;
  let claims = 0;
  let window = 0;
  const stale = { append: 0, claim: 0 };
  /** The mark each connection's last read of the fence key saw, and each endpoint's own mark. */
  const read = new Map<string, number>();
  const endpointMarks = new Map<string, number>();
  const violations: string[] = [];
  let socket: Socket | undefined;

  const settle = () => {
    if (!open) return;
    if (open.token < open.markAt) {
      stale[open.kind]++;
      if (open.wrote)
        violations.push(`${open.kind} with token ${open.token} below the mark ${open.markAt} wrote`);
    }
    open = undefined;
  };

  /** A claim script call: stale against the mark its pass read or its endpoint's; in the window if only
   * against the mark now. */
  const openClaim = (source: string, endpointKey: string, token: number) => {
    claims++;
    const markAt = Math.max(read.get(source) ?? 0, endpointMarks.get(endpointKey) ?? 0);
    if (token >= markAt && token < mark) window++;
    open = { kind: 'claim', token, markAt, wrote: false };
  };

  const onCommand = (args: string[], source: string) => {
    const [name = '', ...rest] = args;
    const cmd = name.toLowerCase();
    if (source !== 'lua') {
      settle();
      if (cmd === 'get' && rest[0] === fenceKey) read.set(source, mark);
      if (cmd !== 'evalsha' && cmd !== 'eval') return;
      const sha = cmd === 'evalsha' ? rest[0] : sha1(rest[0] ?? '');
      const numkeys = Number(rest[1]);
      const keys = rest.slice(2, 2 + numkeys);
      const argv = rest.slice(2 + numkeys);
      if (sha === appendScript.sha && keys[4] === fenceKey && argv[1] !== '') {
        appends++;
        open = { kind: 'append', token: Number(argv[1]), markAt: mark, wrote: false };
      } else if (sha === CLAIM_SHA && argv[4] !== '') {
        openClaim(source, keys[0] ?? '', Number(argv[4]));
      }
      return;
    }
    const key = rest[0];
    if (key === fenceKey && cmd === 'incr') mark++;
    if (key === fenceKey && cmd === 'set') mark = Math.max(mark, Number(rest[1]));
    if (key && cmd === 'hset' && rest[1] === 'fence')
      endpointMarks.set(key, Math.max(endpointMarks.get(key) ?? 0, Number(rest[2])));
    if (open?.kind === 'append' && cmd === 'xadd' && key?.endsWith(':log')) open.wrote = true;
    if (open?.kind === 'claim' && cmd === 'hincrby' && rest[1] === 'in_flight' && rest[2] === '1')
      open.wrote = true;
  };

  // A plain socket: MONITOR answers one simple string per command, `<time> [<db> <source>] "arg" ...`.
  const connect = async () => {
    socket?.destroy();
    const { hostname, port } = new URL(url);
    const s = connectTcp(Number(port), hostname);
    s.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      s.once('connect', resolve);
      s.once('error', reject);
    });
    let buffered = '';
    // The GET's reply comes first: `$-1` (no mark yet) or `$<length>` and the value on the next line.
    let reply: 'header' | 'value' | 'done' = 'header';
    s.setEncoding('utf8');
    s.on('data', (chunk: string) => {
      buffered += chunk;
      let end = buffered.indexOf('\r\n');
      while (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf('\r\n');
        if (reply !== 'done') {
          if (reply === 'value' && Number.isFinite(Number(line))) mark = Math.max(mark, Number(line));
          reply = reply === 'header' && line.startsWith('$') && line !== '$-1' ? 'value' : 'done';
          continue;
        }
        const parsed = line.startsWith('+') ? parseMonitorLine(line.slice(1)) : undefined;
        if (parsed) onCommand(parsed.args, parsed.source);
      }
    });
    const key = Buffer.byteLength(fenceKey);
    s.write(`*2\r\n$3\r\nGET\r\n$${key}\r\n${fenceKey}\r\nMONITOR\r\n`);
    socket = s;
  };
  await connect();

  return {
    serverWiped() {
      settle();
      mark = 0;
      read.clear();
      endpointMarks.clear();
    },
    async reconnect() {
      settle();
      await connect();
    },
    stats: () => {
      settle();
      return { appends, claims, stale: { ...stale }, window, violations: [...violations] };
    },
    close: () => socket?.destroy(),
  };
}

/** `1700000000.123 [0 127.0.0.1:5000] "evalsha" "ab\\"c"`: the source and the arguments, unescaped. */
export function parseMonitorLine(line: string): { source: string; args: string[] } | undefined {
  const open = line.indexOf('[');
  const close = line.indexOf(']', open);
  if (open < 0 || close < 0) return undefined;
  const source = line.slice(open + 1, close).split(' ')[1] ?? '';
  const args: string[] = [];
  let i = close + 1;
  while (i < line.length) {
    if (line[i] !== '"') {
      i++;
      continue;
    }
    let arg = '';
    for (i++; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== '\\') {
        arg += line[i];
        continue;
      }
      const next = line[++i];
      if (next === 'x') {
        arg += String.fromCharCode(Number.parseInt(line.slice(i + 1, i + 3), 16));
        i += 2;
      } else arg += next === 'n' ? '\n' : next === 'r' ? '\r' : next === 't' ? '\t' : next;
    }
    args.push(arg);
    i++;
  }
  return { source, args };
}
