-- KEYS: none yet; every key is built from W = ARGV[1] (see prelude.lua).
-- ARGV: W, now, limit, chat endpoints paused until (now + chatMinIntervalMs), perEndpoint, heads to look
-- at, fencing token or '', fence key. Answers {'fenced', mark} when the token is below the fence mark
-- (claiming nothing), else {'ok', id, claim, id, claim, ...}; a claim with a token above the mark raises it,
-- as an append does (append-script.ts).
local now, limit, perEndpoint = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
local token = tonumber(ARGV[7])
local mark = tonumber(redis.call('GET', ARGV[8]) or '0')
if token and token < mark then return {'fenced', tostring(mark)} end
local raw = redis.call('ZRANGEBYSCORE', W .. 'due', '-inf', now, 'WITHSCORES', 'LIMIT', 0, ARGV[6])
local heads = {}
for i = 1, #raw, 2 do heads[#heads + 1] = {id = raw[i], at = tonumber(raw[i + 1])} end
table.sort(heads, function(a, b)
  if a.at ~= b.at then return a.at < b.at end
  return tonumber(a.id) < tonumber(b.id)
end)
local claimed = {'ok'}
for _, h in ipairs(heads) do
  if (#claimed - 1) / 2 >= limit then break end
  local d = redis.call('HMGET', dkey(h.id), 'endpoint_id', 'stream')
  -- The endpoint's own count of claims in flight (kept by claim, record, recover): no scan of the index.
  local e = redis.call('HMGET', ekey(d[1]), 'kind', 'in_flight')
  local kind = e[1]
  if kind and num(e[2]) < (kind == 'standard' and perEndpoint or 1) then
    redis.call('HINCRBY', ekey(d[1]), 'in_flight', 1)
    local claim = redis.call('INCR', W .. 'claims')
    redis.call('HSET', dkey(h.id), 'status', 'in_flight', 'updated_at', now, 'claim', claim, 'claim_fence',
      ARGV[7])
    redis.call('ZADD', W .. 'claimed', now, h.id)
    count('pending', -1)
    count('in_flight', 1)
    refreshChain(d[1], d[2])
    if kind ~= 'standard' then pause(d[1], ARGV[4]) end
    claimed[#claimed + 1] = h.id
    claimed[#claimed + 1] = claim
  end
end
if token and token > mark and #claimed > 1 then redis.call('SET', ARGV[8], ARGV[7]) end
return claimed
