-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, then 'before', a cutoff and a batch (up to `batch` claims made at or before the cutoff, oldest
-- first, from the claim index `W claimed`; the caller repeats while a full batch came back), or 'claims' and (id, claim) pairs to release while still held. Answers how many became
-- pending.
local ids = {}
if ARGV[2] == 'before' then
  ids = redis.call('ZRANGEBYSCORE', W .. 'claimed', '-inf', ARGV[3], 'LIMIT', 0, ARGV[4])
else
  for i = 3, #ARGV, 2 do
    if redis.call('HGET', dkey(ARGV[i]), 'claim') == ARGV[i + 1] then ids[#ids + 1] = ARGV[i] end
  end
end
local n = 0
for _, id in ipairs(ids) do
  local d = redis.call('HMGET', dkey(id), 'endpoint_id', 'stream')
  if not d[1] then
    redis.call('ZREM', W .. 'claimed', id)
  elseif unclaim(id, d[1]) then
    redis.call('HSET', dkey(id), 'status', 'pending')
    redis.call('HDEL', dkey(id), 'claim')
    count('pending', 1)
    refreshChain(d[1], d[2])
    n = n + 1
  end
end
return n
