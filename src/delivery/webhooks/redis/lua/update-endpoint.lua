-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, now, re-enable ('1'/'0'), then field/value pairs.
-- Answers 0 for no endpoint; the caller then moves the endpoints version. Re-enabling clears the reason,
-- the failure clock and the pause, and makes held chain heads due now (a batch at a time: each one moved
-- leaves the range).
local now = ARGV[2]
if redis.call('EXISTS', EP) == 0 then return 0 end
redis.call('HSET', EP, 'updated_at', now)
for i = 4, #ARGV, 2 do redis.call('HSET', EP, ARGV[i], ARGV[i + 1]) end
if ARGV[3] == '1' then
  redis.call('HDEL', EP, 'disabled_reason', 'failing_since')
  redis.call('HSET', EP, 'paused_until', 0)
  repeat
    local later = redis.call('ZRANGEBYSCORE', DUE, '(' .. now, '+inf', 'LIMIT', 0, 100)
    for _, id in ipairs(later) do
      local d = getD(id)
      d.next_attempt_at = now
      putD(d)
      redis.call('ZADD', DUE, now, id)
    end
  until #later == 0
end
return 1
