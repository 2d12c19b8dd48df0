-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, before, batch. Forgets up to `batch` finished
-- deliveries updated before `before` with their bodies and attempts; answers their ids (the caller drops
-- them from the shared id index).
local ids = redis.call('ZRANGEBYSCORE', FINISHED, '-inf', '(' .. ARGV[2], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(ids) do
  local d = getD(id)
  if d then
    if redis.call('HGET', EVENTS, d.event_id) == id then redis.call('HDEL', EVENTS, d.event_id) end
    count(d.status, -1)
  end
  redis.call('HDEL', D, id)
  redis.call('HDEL', BODIES, id)
  redis.call('HDEL', ATTEMPTS, id)
  redis.call('ZREM', IDS, id)
  redis.call('ZREM', ORIGINALS, id)
  redis.call('ZREM', FINISHED, id)
end
return ids
