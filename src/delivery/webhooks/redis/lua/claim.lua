-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, now, chat endpoints paused until (now +
-- chatMinIntervalMs), perEndpoint, fencing token or '', the first of the claim numbers the caller reserved,
-- then the candidate head ids in claim order. Claims those still due, up to the endpoint's cap. Answers
-- {'fenced'} when the token is below the endpoint's fence mark (a newer lease term has claimed here; the
-- caller checked the shared mark first), else {'ok', id, claim, delivery JSON, id, ...}; a claim with a
-- token above the endpoint's mark raises it.
local now, token = ARGV[2], tonumber(ARGV[5])
local e = redis.call('HMGET', EP, 'kind', 'in_flight', 'enabled', 'paused_until', 'fence')
local kind, inFlight, mark = e[1], num(e[2]), num(e[5])
if token and token < mark then return {'fenced'} end
local claimed = {'ok'}
if not kind or e[3] ~= '1' or num(e[4]) > num(now) then return claimed end
local cap = kind == 'standard' and tonumber(ARGV[4]) or 1
local claim = tonumber(ARGV[6])
for i = 7, #ARGV do
  if inFlight >= cap then break end
  local id = ARGV[i]
  local at = redis.call('ZSCORE', DUE, id)
  local d = at and num(at) <= num(now) and getD(id)
  if d then
    d.status, d.updated_at, d.claim, d.claim_fence = 'in_flight', now, tostring(claim), ARGV[5]
    putD(d)
    redis.call('ZREM', DUE, id)
    redis.call('ZADD', CLAIMED, now, id)
    redis.call('HINCRBY', EP, 'in_flight', 1)
    inFlight = inFlight + 1
    count('pending', -1)
    count('in_flight', 1)
    if kind ~= 'standard' then redis.call('HSET', EP, 'paused_until', ARGV[3]) end
    claimed[#claimed + 1] = id
    claimed[#claimed + 1] = tostring(claim)
    claimed[#claimed + 1] = cjson.encode(d)
    claim = claim + 1
  end
end
if token and token > mark and #claimed > 1 then redis.call('HSET', EP, 'fence', ARGV[5]) end
return claimed
