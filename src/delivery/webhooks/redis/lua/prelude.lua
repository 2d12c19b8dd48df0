-- Helpers in scope of every outbox script (scripts.ts prepends this file to each). W = ARGV[1] is
-- the key prefix `<prefix>webhooks:`; the key layout is described in scripts.ts and docs/webhooks.md.
local W = ARGV[1]
local function dkey(id) return W .. 'd:' .. id end
local function ekey(ep) return W .. 'ep:' .. ep end
local function chainKey(ep, stream) return W .. 'chain:' .. ep .. ':' .. stream end
-- Times stay the strings they came as: Lua would print a large number as 1.79e+12.
local function num(v) return tonumber(v) or 0 end
local function later(a, b) if num(a) >= num(b) then return a or '0' end return b end
local function count(status, by) redis.call('HINCRBY', W .. 'counts', status, by) end

-- Keeps W due in step with the chain's head.
local function refreshChain(ep, stream)
  local head = redis.call('ZRANGE', chainKey(ep, stream), 0, 0)[1]
  if not head then return end
  local d = redis.call('HMGET', dkey(head), 'status', 'next_attempt_at')
  local e = redis.call('HMGET', ekey(ep), 'enabled', 'paused_until')
  if d[1] == 'pending' and e[1] == '1' then
    redis.call('ZADD', W .. 'due', later(d[2], e[2]), head)
  else
    redis.call('ZREM', W .. 'due', head)
  end
end

local function refreshEndpoint(ep)
  for _, stream in ipairs(redis.call('SMEMBERS', ekey(ep) .. ':streams')) do refreshChain(ep, stream) end
end

local function pause(ep, untilMs)
  redis.call('HSET', ekey(ep), 'paused_until', untilMs)
  refreshEndpoint(ep)
end

-- An owed delivery at the tail of its (endpoint, stream) chain; answers its id.
local function insert(ep, eventId, eventType, stream, seq, body, now, replayOf)
  local id = redis.call('INCR', W .. 'ids')
  local fields = {'id', id, 'endpoint_id', ep, 'event_id', eventId, 'event_type', eventType, 'stream', stream,
    'seq', seq, 'body', body, 'status', 'pending', 'attempts', 0, 'next_attempt_at', now, 'created_at', now,
    'updated_at', now}
  if replayOf then
    table.insert(fields, 'replay_of')
    table.insert(fields, replayOf)
  end
  redis.call('HSET', dkey(id), unpack(fields))
  redis.call('ZADD', ekey(ep) .. ':deliveries', id, id)
  if not replayOf then redis.call('ZADD', ekey(ep) .. ':originals', now, id) end
  count('pending', 1)
  redis.call('ZADD', chainKey(ep, stream), id, id)
  redis.call('SADD', ekey(ep) .. ':streams', stream)
  refreshChain(ep, stream)
  return id
end

local function replay(id, now)
  local d = redis.call('HMGET', dkey(id), 'endpoint_id', 'event_id', 'event_type', 'stream', 'seq', 'body')
  if not d[1] then return false end
  return insert(d[1], d[2], d[3], d[4], d[5], d[6], now, id)
end

-- A finished head hands its chain to the next owed delivery, or the chain ends.
local function leaveChain(id, ep, stream)
  redis.call('ZREM', chainKey(ep, stream), id)
  redis.call('ZREM', W .. 'due', id)
  if redis.call('EXISTS', chainKey(ep, stream)) == 0 then
    redis.call('SREM', ekey(ep) .. ':streams', stream)
  else
    refreshChain(ep, stream)
  end
end

-- Ends a claim: drops it from the claim index and its endpoint's in-flight count. False when it was not held.
local function unclaim(id, ep)
  if redis.call('ZREM', W .. 'claimed', id) == 0 then return false end
  redis.call('HINCRBY', ekey(ep), 'in_flight', -1)
  count('in_flight', -1)
  return true
end

local function setOrDel(key, field, value)
  if value == '' then redis.call('HDEL', key, field) else redis.call('HSET', key, field, value) end
end
