-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, id. Removes the endpoint with its deliveries, attempts and chains; answers 0 for none.
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', ekey(ep) .. ':deliveries', 0, -1)) do
  count(redis.call('HGET', dkey(id), 'status'), -1)
  redis.call('ZREM', W .. 'claimed', id)
  redis.call('ZREM', W .. 'due', id)
  redis.call('ZREM', W .. 'finished', id)
  redis.call('DEL', dkey(id), dkey(id) .. ':attempts')
end
for _, stream in ipairs(redis.call('SMEMBERS', ekey(ep) .. ':streams')) do redis.call('DEL', chainKey(ep, stream)) end
redis.call('DEL', ekey(ep), ekey(ep) .. ':deliveries', ekey(ep) .. ':originals', ekey(ep) .. ':events',
  ekey(ep) .. ':streams')
redis.call('ZREM', W .. 'endpoints', ep)
redis.call('INCR', W .. 'endpoints-version')
return 1
