-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, id, until.
if redis.call('EXISTS', ekey(ARGV[2])) == 0 then return 0 end
pause(ARGV[2], ARGV[3])
return 1
