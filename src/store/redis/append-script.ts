/**
 * The append, as one Lua script so that it is atomic on the server: it checks the fencing token, that the
 * head is still where the caller numbered from and that the log has an epoch, and only then adds the
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
 * KEYS: 1 head hash, 2 document, 3 entries stream, 4 stream set, 5 fence (counter and mark), 6 log epoch,
 *       7 feed stream.
 * ARGV: 1 expected head seq, 2 fencing token or '', 3 documentSeq or '', 4 document JSON, 5 window or '',
 *       6 stream id, 7 one character per entry, '1' for an event, 8 the append's time in ms (for retention),
 *       9 the epoch the entries carry, 10.. entries as JSON, in seq order.
 * The feed is not capped here: its reader trims what it has read (a cap could drop events nobody has read).
 * Returns {'ok'}, {'conflict', <head seq>}, {'fenced', <newest token seen>} or {'no_epoch'} (Redis was
 * flushed since this node read the log's epoch, which then is gone or another one).
 */
import { defineScript } from './script.js';

export const appendScript = defineScript(`
local token = tonumber(ARGV[2])
local mark = tonumber(redis.call('GET', KEYS[5]) or '0')
if token and token < mark then return {'fenced', tostring(mark)} end
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if seq ~= tonumber(ARGV[1]) then return {'conflict', tostring(seq)} end
local epoch = redis.call('HGET', KEYS[1], 'epoch') or redis.call('GET', KEYS[6])
if epoch ~= ARGV[9] then return {'no_epoch'} end
for i = 10, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[3], string.format('%d-0', seq), 'e', ARGV[i])
  if string.sub(ARGV[7], i - 9, i - 9) == '1' then redis.call('XADD', KEYS[7], '*', 'e', ARGV[i]) end
end
redis.call('HSET', KEYS[1], 'epoch', epoch, 'seq', string.format('%d', seq), 'updatedAt', ARGV[8])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'documentSeq', ARGV[3])
  redis.call('SET', KEYS[2], ARGV[4])
end
if ARGV[5] ~= '' then redis.call('XTRIM', KEYS[3], 'MAXLEN', ARGV[5]) end
redis.call('SADD', KEYS[4], ARGV[6])
if token and token > mark then redis.call('SET', KEYS[5], ARGV[2]) end
return {'ok'}
`);

/**
 * Retention of one stream, atomic against appends: settles it (drops its entries) or forgets it (drops its
 * document too, keeping seq and epoch) by the time of its last append. A head without `updatedAt` (written
 * before retention existed) is left alone until its next append.
 * KEYS: 1 head hash, 2 document, 3 entries stream. ARGV: 1 settledBefore ms, 2 forgetBefore ms.
 * Returns 0 (kept as is), 1 (settled) or 2 (forgotten).
 */
export const expireScript = defineScript(`
local updated = tonumber(redis.call('HGET', KEYS[1], 'updatedAt') or '')
if not updated or updated >= tonumber(ARGV[1]) then return 0 end
local hasEntries = redis.call('XLEN', KEYS[3]) > 0
local documentSeq = tonumber(redis.call('HGET', KEYS[1], 'documentSeq') or '0')
if updated < tonumber(ARGV[2]) and (hasEntries or documentSeq ~= 0) then
  redis.call('XTRIM', KEYS[3], 'MAXLEN', 0)
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'documentSeq', '0')
  return 2
end
if hasEntries then
  redis.call('XTRIM', KEYS[3], 'MAXLEN', 0)
  return 1
end
return 0
`);
