-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, expected cursor, new cursor, expected endpoints version, now, then per delivery: endpoint,
-- event id, type, stream, seq, body. Answers {'stale'} when the cursor or the endpoints moved since the
-- caller read them, else {'ok', inserted}. Skips (endpoint, event) pairs already enqueued.
if (redis.call('GET', W .. 'feed-cursor') or '') ~= ARGV[2] then return {'stale'} end
if (redis.call('GET', W .. 'endpoints-version') or '0') ~= ARGV[4] then return {'stale'} end
local n = 0
for i = 6, #ARGV, 6 do
  local ep, eventId = ARGV[i], ARGV[i + 1]
  if redis.call('HEXISTS', ekey(ep) .. ':events', eventId) == 0 then
    local id = insert(ep, eventId, ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[5], false)
    redis.call('HSET', ekey(ep) .. ':events', eventId, id)
    n = n + 1
  end
end
redis.call('SET', W .. 'feed-cursor', ARGV[3])
return {'ok', n}
