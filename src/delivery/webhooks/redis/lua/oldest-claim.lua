-- KEYS: the claim index (`W claimed`): one key, so Redis Cluster can run it.
-- ARGV: W. When the oldest claim in flight was made (the lowest score of the claim index), or false when
-- none is.
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return first[2] or false
