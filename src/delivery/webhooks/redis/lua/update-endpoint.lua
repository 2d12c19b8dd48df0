-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, id, now, re-enable ('1'/'0'), enabled changes ('1'/'0'), then field/value pairs. Answers 0
-- for no endpoint. Re-enabling clears the reason, the failure clock and the pause, and makes held
-- deliveries due now.
local ep, now = ARGV[2], ARGV[3]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
redis.call('HSET', ekey(ep), 'updated_at', now)
for i = 6, #ARGV, 2 do redis.call('HSET', ekey(ep), ARGV[i], ARGV[i + 1]) end
if ARGV[4] == '1' then
  redis.call('HDEL', ekey(ep), 'disabled_reason', 'failing_since')
  redis.call('HSET', ekey(ep), 'paused_until', 0)
  for _, stream in ipairs(redis.call('SMEMBERS', ekey(ep) .. ':streams')) do
    for _, id in ipairs(redis.call('ZRANGE', chainKey(ep, stream), 0, -1)) do
      local d = redis.call('HMGET', dkey(id), 'status', 'next_attempt_at')
      if d[1] == 'pending' and num(d[2]) > tonumber(now) then redis.call('HSET', dkey(id), 'next_attempt_at', now) end
    end
  end
end
if ARGV[5] == '1' then refreshEndpoint(ep) end
redis.call('INCR', W .. 'endpoints-version')
return 1
