-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W. When the oldest claim in flight was made (its delivery's updated_at), or false when none is.
local oldest = false
for _, id in ipairs(redis.call('SMEMBERS', W .. 'inflight')) do
  local at = num(redis.call('HGET', dkey(id), 'updated_at'))
  if not oldest or at < oldest then oldest = at end
end
return oldest and tostring(oldest)
