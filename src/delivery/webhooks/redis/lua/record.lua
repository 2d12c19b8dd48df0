-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, id, claim, attempt row JSON (without id), status, next attempt at, at, status code or '', error
-- or ''. Logs the attempt; changes the delivery only while that claim is still its claim. Answers 1 when it
-- did, else 0.
local id = ARGV[2]
if redis.call('EXISTS', dkey(id)) == 0 then return 0 end
local aid = redis.call('INCR', W .. 'attempt-ids')
redis.call('RPUSH', dkey(id) .. ':attempts', '{"id":' .. aid .. ',' .. string.sub(ARGV[4], 2))
local d = redis.call('HMGET', dkey(id), 'status', 'attempts', 'endpoint_id', 'stream', 'claim')
if d[1] ~= 'in_flight' or d[5] ~= ARGV[3] then return 0 end
redis.call('HDEL', dkey(id), 'claim')
local status = ARGV[5]
redis.call('HSET', dkey(id), 'status', status, 'attempts', num(d[2]) + 1, 'next_attempt_at', ARGV[6],
  'updated_at', ARGV[7])
setOrDel(dkey(id), 'last_status_code', ARGV[8])
setOrDel(dkey(id), 'last_error', ARGV[9])
unclaim(id, d[3])
count(status, 1)
if status == 'delivered' or status == 'failed' then
  redis.call('ZADD', W .. 'finished', ARGV[7], id)
  leaveChain(id, d[3], d[4])
else
  refreshChain(d[3], d[4])
end
return 1
