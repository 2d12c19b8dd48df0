-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, then 'before' and a cutoff (claims made at or before it: a claim is made at its delivery's
-- updated_at), or 'claims' and (id, claim) pairs to release while still held. Answers how many became
-- pending.
local ids = {}
if ARGV[2] == 'before' then
  for _, id in ipairs(redis.call('SMEMBERS', W .. 'inflight')) do
    if num(redis.call('HGET', dkey(id), 'updated_at')) <= tonumber(ARGV[3]) then ids[#ids + 1] = id end
  end
else
  for i = 3, #ARGV, 2 do
    if redis.call('HGET', dkey(ARGV[i]), 'claim') == ARGV[i + 1] then ids[#ids + 1] = ARGV[i] end
  end
end
local n = 0
for _, id in ipairs(ids) do
  if redis.call('SREM', W .. 'inflight', id) == 1 then
    redis.call('HSET', dkey(id), 'status', 'pending')
    redis.call('HDEL', dkey(id), 'claim')
    count('in_flight', -1)
    count('pending', 1)
    local d = redis.call('HMGET', dkey(id), 'endpoint_id', 'stream')
    refreshChain(d[1], d[2])
    n = n + 1
  end
end
return n
