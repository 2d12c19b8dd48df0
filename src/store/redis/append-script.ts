/**
 * The append, as one Lua script (`lua/append.lua`, whose header lists its KEYS, ARGV and replies) so that it
 * is atomic on the server: it checks the fencing token, that the head is still where the caller numbered from and that the log has an epoch, and only then adds the
 * entries, moves the head, stores the document, trims the window and raises the fence mark. Two nodes can
 * never both write the same seq: the second sees a moved head. Event entries are also added to the
 * deployment-wide feed stream in the same step, so the webhook outbox, which reads the feed, sees every event
 * that was appended and none that was not.
 *
 * The fence key is the lease's token counter itself: a token below it is stale (another node acquired the
 * lease since); a committed write with a token above it (the counter was lost with a Redis restart without
 * persistence) raises it, so the next acquisition's token is above every token that wrote. The mark never
 * moves for a write that does not happen.
 *
 * The feed is not capped here: its reader trims what it has read (a cap could drop events nobody has read).
 */
import { readFileSync } from 'node:fs';
import { defineScript } from '../../redis/script.js';

/** The source of `lua/<name>.lua`, beside this module in src/ and in dist/ (the build copies it). */
const lua = (name: string): string => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');

export const appendScript = defineScript(lua('append'));

/**
 * Retention of one stream, atomic against appends: settles it (drops its entries) or forgets it (drops its
 * document too, keeping seq and epoch) by the time of its last append (`lua/expire.lua`).
 */
export const expireScript = defineScript(lua('expire'));

/** Takes streams that hold nothing any more out of the retained index, unless appended since (`lua/unindex.lua`). */
export const unindexScript = defineScript(lua('unindex'));
