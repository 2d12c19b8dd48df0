-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W. When the oldest claim in flight was made (the lowest score of the claim index), or false when
-- none is.
local first = redis.call('ZRANGE', W .. 'claimed', 0, 0, 'WITHSCORES')
return first[2] or false
