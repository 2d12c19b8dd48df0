/**
 * The Redis outbox's state changes, each one Lua script (in `lua/`, loaded once here) so that it is atomic on
 * the server: a crash never leaves a delivery half claimed, a chain or a count out of step. Every script
 * declares every key it touches in KEYS, all under one hash tag, so Redis Cluster can run it (keys.ts has the
 * layout; test/store/redis-cluster-keys.test.ts holds the rule):
 * - per-endpoint scripts (`lua/*.lua`, with `lua/prelude.lua` prepended) take one endpoint's keys;
 * - shared scripts (`lua/shared/*.lua`) take keys of the `{shared}` tag, or the fence mark alone.
 * What spans both (a feed batch, a claim pass) is a sequence of such calls made by queue.ts, each step safe
 * to repeat (docs/webhooks.md says how each one is).
 */
import { readFileSync } from 'node:fs';
import { defineScript } from '../../../redis/script.js';

/** The source of `lua/<name>.lua`, beside this module in src/ and in dist/ (the build copies it). */
const outboxLua = (name: string): string =>
  readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');

/** The helpers every per-endpoint script has in scope (its keys by name, chain upkeep, insert). */
const PRELUDE = outboxLua('prelude');

/** The source a per-endpoint script runs: `lua/<name>.lua` with the prelude's helpers in scope. */
export const endpointScriptSource = (name: string) => `${PRELUDE}\n${outboxLua(name)}`;

const endpointScript = (name: string) => defineScript(endpointScriptSource(name));

export const enqueueScript = endpointScript('enqueue');
export const replayScript = endpointScript('replay');
export const claimScript = endpointScript('claim');
export const recordScript = endpointScript('record');
export const recoverScript = endpointScript('recover');
export const pruneScript = endpointScript('prune');
export const pauseScript = endpointScript('pause');
export const updateEndpointScript = endpointScript('update-endpoint');
export const deleteEndpointScript = endpointScript('delete-endpoint');
export const rotateScript = endpointScript('rotate');
export const disableScript = endpointScript('disable');
export const healthScript = endpointScript('health');

export const feedCursorScript = defineScript(outboxLua('shared/feed-cursor'));
export const reserveIdsScript = defineScript(outboxLua('shared/reserve-ids'));
export const raiseFenceScript = defineScript(outboxLua('shared/raise-fence'));
