-- Takes streams that hold nothing any more out of the retained index, each only if its score is still the
-- one retention read: an append in between moved it, and that stream has entries again.
-- KEYS: 1 the retained index (stream -> time of its last append).
-- ARGV: stream, score, stream, score, ... (the scores as ZRANGE WITHSCORES gave them).
-- Returns how many it removed.
--
local removed = 0
for i = 1, #ARGV, 2 do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return removed
