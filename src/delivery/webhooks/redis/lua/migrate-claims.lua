-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W. The one-time upgrade of the in-flight index written before 2026-11-26: the set `W inflight`
-- becomes the claim index `W claimed` (zset claim time -> id, the claim time being the delivery's updated_at)
-- and each endpoint's `in_flight` count. Atomic and a no-op once done (the old set is deleted), so every
-- node runs it before its first use of the index. The only script that reads a whole set, and only once.
-- Answers how many claims it moved.
if redis.call('EXISTS', W .. 'inflight') == 0 then return 0 end
local ids = redis.call('SMEMBERS', W .. 'inflight')
for _, id in ipairs(ids) do
  local d = redis.call('HMGET', dkey(id), 'endpoint_id', 'updated_at')
  if d[1] then
    redis.call('ZADD', W .. 'claimed', d[2] or '0', id)
    redis.call('HINCRBY', ekey(d[1]), 'in_flight', 1)
  end
end
redis.call('DEL', W .. 'inflight')
return #ids
