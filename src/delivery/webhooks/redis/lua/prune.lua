-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, before, batch. Forgets up to `batch` finished deliveries updated before `before`; answers how
-- many.
local ids = redis.call('ZRANGEBYSCORE', W .. 'finished', '-inf', '(' .. ARGV[2], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(ids) do
  local d = redis.call('HMGET', dkey(id), 'endpoint_id', 'status', 'event_id')
  local ep = d[1]
  redis.call('DEL', dkey(id), dkey(id) .. ':attempts')
  redis.call('ZREM', ekey(ep) .. ':deliveries', id)
  redis.call('ZREM', ekey(ep) .. ':originals', id)
  if redis.call('HGET', ekey(ep) .. ':events', d[3]) == id then redis.call('HDEL', ekey(ep) .. ':events', d[3]) end
  count(d[2], -1)
  redis.call('ZREM', W .. 'finished', id)
end
return #ids
