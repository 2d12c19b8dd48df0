-- Retention of one stream, atomic against appends: settles it (drops its entries) or forgets it (drops its
-- document too, keeping seq and epoch) by the time of its last append. A head without `updatedAt` (written
-- before retention existed) is left alone until its next append.
-- KEYS: 1 head hash, 2 document (the checkpoint), 3 entries stream, 4 patches since the checkpoint.
-- ARGV: 1 settledBefore ms, 2 forgetBefore ms.
-- Returns {outcome, holds}: outcome 0 (kept as is), 1 (settled) or 2 (forgotten); holds 1 while the stream
-- still has entries or a document for a later pass to expire, 0 once it has neither.
--
local updated = tonumber(redis.call('HGET', KEYS[1], 'updatedAt') or '')
if not updated or updated >= tonumber(ARGV[1]) then return {0, 1} end
local hasEntries = redis.call('XLEN', KEYS[3]) > 0
local documentSeq = tonumber(redis.call('HGET', KEYS[1], 'documentSeq') or '0')
if updated < tonumber(ARGV[2]) and (hasEntries or documentSeq ~= 0) then
  redis.call('XTRIM', KEYS[3], 'MAXLEN', 0)
  redis.call('DEL', KEYS[2], KEYS[4])
  redis.call('HSET', KEYS[1], 'documentSeq', '0', 'patchesSince', '0')
  return {2, 0}
end
local holds = documentSeq ~= 0 and 1 or 0
if hasEntries then
  redis.call('XTRIM', KEYS[3], 'MAXLEN', 0)
  return {1, holds}
end
return {0, holds}
