-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, id, reason, now.
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
redis.call('HSET', ekey(ep), 'enabled', '0', 'disabled_reason', ARGV[3], 'updated_at', ARGV[4])
refreshEndpoint(ep)
redis.call('INCR', W .. 'endpoints-version')
return 1
