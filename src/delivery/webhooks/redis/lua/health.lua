-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, failed ('1'/'0'), at. Answers when the endpoint
-- started failing, or nil.
if redis.call('EXISTS', EP) == 0 then return false end
if ARGV[2] == '0' then
  redis.call('HDEL', EP, 'failing_since')
  return false
end
redis.call('HSETNX', EP, 'failing_since', ARGV[3])
return redis.call('HGET', EP, 'failing_since')
