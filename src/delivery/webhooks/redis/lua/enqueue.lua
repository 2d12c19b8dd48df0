-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, now, 'feed' or 'one', the first of the ids the
-- caller reserved, then per delivery: event id, type, stream, seq, body. 'feed' skips events already
-- enqueued for the endpoint (its feed dedupe) and records the rest. Answers {'gone'} for no endpoint,
-- {'retry'} when the reserved ids are not above the endpoint's last one (nothing written), else
-- {'ok', id, id, ...}: the ids used, in order (the caller returns the unused ones).
if redis.call('EXISTS', EP) == 0 then return {'gone'} end
if not idsFit(ARGV[4]) then return {'retry'} end
local now, feed, next = ARGV[2], ARGV[3] == 'feed', tonumber(ARGV[4])
local out = {'ok'}
for i = 5, #ARGV, 5 do
  local eventId = ARGV[i]
  if not (feed and redis.call('HEXISTS', EVENTS, eventId) == 1) then
    local id = tostring(next)
    next = next + 1
    insert(id, eventId, ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now, nil)
    if feed then redis.call('HSET', EVENTS, eventId, id) end
    out[#out + 1] = id
  end
end
return out
