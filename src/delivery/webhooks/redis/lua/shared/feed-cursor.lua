-- KEYS: the feed cursor and the endpoints version (both under the hash tag {shared}). ARGV: the cursor and
-- the endpoints version a feed batch was planned against, and the new cursor or '' (check only). Answers
-- 'stale' when either moved since, else 'ok' after moving the cursor.
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 'stale' end
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[2] then return 'stale' end
if ARGV[3] ~= '' then redis.call('SET', KEYS[1], ARGV[3]) end
return 'ok'
