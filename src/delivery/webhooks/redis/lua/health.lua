-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, id, failed ('1'/'0'), at. Answers when the endpoint started failing, or nil.
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return false end
if ARGV[3] == '0' then
  redis.call('HDEL', ekey(ep), 'failing_since')
  return false
end
redis.call('HSETNX', ekey(ep), 'failing_since', ARGV[4])
return redis.call('HGET', ekey(ep), 'failing_since')
