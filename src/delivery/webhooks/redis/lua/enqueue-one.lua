-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, endpoint, event id, type, stream, seq, body, now. Answers the id, or 0 for no endpoint.
if redis.call('EXISTS', ekey(ARGV[2])) == 0 then return 0 end
return insert(ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], false)
