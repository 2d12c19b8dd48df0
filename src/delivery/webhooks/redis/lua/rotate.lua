-- KEYS: the endpoint's hash (`W ep:<id>`): one key, so Redis Cluster can run it.
-- ARGV: W, new secret, previous secret expires at, now. Answers 0 for no endpoint.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'previous_secret', redis.call('HGET', KEYS[1], 'secret'),
  'previous_secret_expires_at', ARGV[3], 'secret', ARGV[2], 'updated_at', ARGV[4])
return 1
