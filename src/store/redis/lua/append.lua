-- The append, atomic on the server: checks the fencing token, that the head is still where the caller
-- numbered from and that the log has an epoch, and only then adds the entries, moves the head, stores the
-- document (a checkpoint, or the patch pushed onto the patches since it), trims the window and raises the
-- fence mark. Event entries also go to the feed stream in the same step, so the webhook outbox sees every
-- event that was appended and none that was not. (The why, at length: append-script.ts.)
--
-- KEYS: 1 head hash, 2 document (the checkpoint), 3 entries stream, 4 stream set, 5 fence (counter and mark),
--       6 log epoch, 7 feed stream, 8 patches since the checkpoint (a list of ops JSON), 9 the retained index
--       (a sorted set: stream -> time of its last append, which retention reads instead of every stream).
-- ARGV: 1 expected head seq, 2 fencing token or '', 3 documentSeq or '', 4 the document (a checkpoint, packed:
--       redis-event-log.ts `packValue`) or the patch's ops JSON, 5 window or '', 6 stream id, 7 one character
--       per entry, '1' for an event, 8 the append's time in ms (for retention), 9 the epoch the entries carry,
--       10 'c' when ARGV[4] is a checkpoint, 'p' when a patch, 11..10+n the n entries packed (field `z`), in seq
--       order, then each event's JSON text again, in the same order, for the feed (field `e`).
-- Returns {'ok'}, {'conflict', <head seq>}, {'fenced', <newest token seen>} or {'no_epoch'}.
local token = tonumber(ARGV[2])
local mark = tonumber(redis.call('GET', KEYS[5]) or '0')
if token and token < mark then return {'fenced', tostring(mark)} end
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if seq ~= tonumber(ARGV[1]) then return {'conflict', tostring(seq)} end
local epoch = redis.call('HGET', KEYS[1], 'epoch') or redis.call('GET', KEYS[6])
if epoch ~= ARGV[9] then return {'no_epoch'} end
local n = string.len(ARGV[7])
local feedAt = 11 + n
for i = 11, 10 + n do
  seq = seq + 1
  redis.call('XADD', KEYS[3], string.format('%d-0', seq), 'z', ARGV[i])
  if string.sub(ARGV[7], i - 10, i - 10) == '1' then
    redis.call('XADD', KEYS[7], '*', 'e', ARGV[feedAt])
    feedAt = feedAt + 1
  end
end
redis.call('HSET', KEYS[1], 'epoch', epoch, 'seq', string.format('%d', seq), 'updatedAt', ARGV[8])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'documentSeq', ARGV[3])
  if ARGV[10] == 'c' then
    redis.call('SET', KEYS[2], ARGV[4])
    redis.call('DEL', KEYS[8])
    redis.call('HSET', KEYS[1], 'patchesSince', '0')
  else
    redis.call('RPUSH', KEYS[8], ARGV[4])
    redis.call('HINCRBY', KEYS[1], 'patchesSince', 1)
  end
end
if ARGV[5] ~= '' then redis.call('XTRIM', KEYS[3], 'MAXLEN', ARGV[5]) end
redis.call('SADD', KEYS[4], ARGV[6])
redis.call('ZADD', KEYS[9], ARGV[8], ARGV[6])
if token and token > mark then redis.call('SET', KEYS[5], ARGV[2]) end
return {'ok'}
