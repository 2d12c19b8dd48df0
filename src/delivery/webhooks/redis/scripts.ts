/**
 * The Redis outbox's state changes, each one Lua script (in `lua/`, loaded once here) so that it is atomic on
 * the server: a crash never leaves a delivery half claimed, a chain or a count out of step. ARGV[1] is always
 * the key prefix `<prefix>webhooks:` (W); most scripts still build their keys from it as in keys.ts (endpoint
 * ids hold no `:`); `rotate`, `health` and `oldest-claim` take theirs in KEYS (docs/webhooks.md: how Redis
 * Cluster would split the rest).
 *
 * Per delivery `W d:<id>` (hash, the webhook_deliveries columns) and `W d:<id>:attempts` (list of JSON
 * rows). Per endpoint `W ep:<id>` (hash, the webhook_endpoints columns and `in_flight`, its claims in
 * flight), `:deliveries` (zset id->id), `:originals` (zset created_at->id, non-replays), `:events` (hash event
 * id -> delivery id, the feed's dedupe), `:streams` (set of streams with owed deliveries). Per chain
 * `W chain:<ep>:<stream>` (zset of the owed ids; the head is the lowest). Shared: `W due` (zset head id -> due
 * time, as CHAIN_DUE_AT in sqlite/rows.ts), `W claimed` (zset id -> claim time, the claims in flight),
 * `W finished` (zset updated_at -> id), `W counts` (hash status -> n), `W ids` / `W attempt-ids` / `W claims`
 * (INCR), `W endpoints` (zset created_at -> id), `W endpoints-version` (INCR on every change that alters which
 * endpoints want what).
 */
import { readFileSync } from 'node:fs';
import { defineScript } from '../../../redis/script.js';

/** The source of `lua/<name>.lua`, beside this module in src/ and in dist/ (the build copies it). */
export const outboxLua = (name: string): string =>
  readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');

/** The helpers every outbox script has in scope (key names, chain and due-set upkeep, insert, replay). */
const PRELUDE = outboxLua('prelude');

/** The script `lua/<name>.lua` with the prelude's helpers in scope. */
export const outboxScript = (name: string) => defineScript(`${PRELUDE}\n${outboxLua(name)}`);

export const feedScript = outboxScript('feed');
export const enqueueOneScript = outboxScript('enqueue-one');
export const replayScript = outboxScript('replay');
export const replayRangeScript = outboxScript('replay-range');
export const claimScript = outboxScript('claim');
export const recordScript = outboxScript('record');
export const recoverScript = outboxScript('recover');
export const oldestClaimScript = outboxScript('oldest-claim');
export const pruneScript = outboxScript('prune');
export const migrateClaimsScript = outboxScript('migrate-claims');
export const updateEndpointScript = outboxScript('update-endpoint');
export const deleteEndpointScript = outboxScript('delete-endpoint');
export const rotateScript = outboxScript('rotate');
export const disableScript = outboxScript('disable');
export const pauseScript = outboxScript('pause');
export const healthScript = outboxScript('health');
