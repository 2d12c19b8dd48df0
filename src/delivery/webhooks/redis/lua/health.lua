-- KEYS: the endpoint's hash (`W ep:<id>`): one key, so Redis Cluster can run it.
-- ARGV: W, failed ('1'/'0'), at. Answers when the endpoint started failing, or nil.
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[2] == '0' then
  redis.call('HDEL', KEYS[1], 'failing_since')
  return false
end
redis.call('HSETNX', KEYS[1], 'failing_since', ARGV[3])
return redis.call('HGET', KEYS[1], 'failing_since')
