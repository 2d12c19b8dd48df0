-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, endpoint, from, to, now. Replays originals created in [from, to] in id order; answers how many.
local ids = redis.call('ZRANGEBYSCORE', ekey(ARGV[2]) .. ':originals', ARGV[3], ARGV[4])
table.sort(ids, function(a, b) return tonumber(a) < tonumber(b) end)
for _, id in ipairs(ids) do replay(id, ARGV[5]) end
return #ids
