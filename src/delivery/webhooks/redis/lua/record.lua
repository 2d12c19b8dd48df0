-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, delivery id, claim, the attempt row (JSON, its id
-- taken by the caller), status, next attempt at, at, status code or '', error or ''. Logs the attempt;
-- changes the delivery only while that claim is still its claim. Answers 1 when it did, else 0.
local id = ARGV[2]
local d = getD(id)
if not d then return 0 end
local logged = redis.call('HGET', ATTEMPTS, id)
redis.call('HSET', ATTEMPTS, id, logged and (logged .. '\n' .. ARGV[4]) or ARGV[4])
if d.status ~= 'in_flight' or d.claim ~= ARGV[3] then return 0 end
local status = ARGV[5]
d.claim, d.status, d.attempts, d.next_attempt_at, d.updated_at = nil, status, tostring(num(d.attempts) + 1),
  ARGV[6], ARGV[7]
d.last_status_code = ARGV[8] ~= '' and ARGV[8] or nil
d.last_error = ARGV[9] ~= '' and ARGV[9] or nil
putD(d)
unclaim(id)
count(status, 1)
if status == 'delivered' or status == 'failed' then
  redis.call('ZADD', FINISHED, ARGV[7], id)
  leaveChain(id, d.stream)
else
  refreshChain(d.stream)
end
return 1
