/**
 * The Redis outbox's endpoint changes that touch deliveries or the feed: each one Lua script in `lua/`, with
 * the helpers and key layout of scripts.ts. ARGV[1] is the key prefix W; each file's header lists
 * its ARGV.
 */
import { outboxScript } from './scripts.js';

export const updateEndpointScript = outboxScript('update-endpoint');
export const deleteEndpointScript = outboxScript('delete-endpoint');
export const rotateScript = outboxScript('rotate');
export const disableScript = outboxScript('disable');
export const pauseScript = outboxScript('pause');
export const healthScript = outboxScript('health');
