-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, id, new secret, previous secret expires at, now. Answers 0 for no endpoint.
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
redis.call('HSET', ekey(ep), 'previous_secret', redis.call('HGET', ekey(ep), 'secret'),
  'previous_secret_expires_at', ARGV[4], 'secret', ARGV[3], 'updated_at', ARGV[5])
return 1
