-- KEYS: the fence mark (the lease's token counter). ARGV: a fencing token. Raises the mark to the token when
-- the token is above it, as an append does (append.lua), after a claim made under that token.
local mark = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > mark then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
