-- Helpers in scope of every per-endpoint script (scripts.ts prepends this file to each). Such a script
-- touches one endpoint's keys only, all declared in KEYS in the order of keys.ts's endpointKeys and all
-- under the hash tag {ep:<id>}, so Redis Cluster can run it; ARGV[1] is the endpoint id. Keys shared by
-- every endpoint (ids, claim numbers, the cursor) are the caller's, which hands in what it took from them.
local EP, D, BODIES, ATTEMPTS, IDS, ORIGINALS, EVENTS, CHAINS, DUE, CLAIMED, FINISHED, COUNTS =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12]
local EP_ID = ARGV[1]
-- Times and ids stay the strings they came as: Lua would print a large number as 1.79e+12.
local function num(v) return tonumber(v) or 0 end
local function count(status, by) redis.call('HINCRBY', COUNTS, status, by) end

-- A delivery is one JSON object in D (string fields, as the hashes of keys.ts describe).
local function getD(id)
  local raw = redis.call('HGET', D, id)
  return raw and cjson.decode(raw)
end
local function putD(d) redis.call('HSET', D, d.id, cjson.encode(d)) end

-- A chain link sorts by stream, then id: `<stream>\0<id, 20 digits>`.
local function link(stream, id) return stream .. '\0' .. string.rep('0', 20 - #id) .. id end

-- Keeps DUE in step with the stream's chain head: a pending head is due at its next attempt time.
local function refreshChain(stream)
  local first = redis.call('ZRANGEBYLEX', CHAINS, '[' .. stream .. '\0', '(' .. stream .. '\1', 'LIMIT', 0, 1)[1]
  if not first then return end
  local id = string.match(string.sub(first, -20), '^0*(%d+)$')
  local d = getD(id)
  if d and d.status == 'pending' then
    redis.call('ZADD', DUE, d.next_attempt_at, id)
  else
    redis.call('ZREM', DUE, id)
  end
end

-- Reserved ids must be above every id the endpoint holds, so that its chains and listings stay in insertion
-- order when two callers reserve and insert in opposite orders; false tells the caller to reserve again.
local function idsFit(first)
  return num(first) > num(redis.call('HGET', EP, 'last_id'))
end

-- An owed delivery at the tail of its (endpoint, stream) chain.
local function insert(id, eventId, eventType, stream, seq, body, now, replayOf)
  putD({id = id, endpoint_id = EP_ID, event_id = eventId, event_type = eventType, stream = stream, seq = seq,
    status = 'pending', attempts = '0', next_attempt_at = now, created_at = now, updated_at = now,
    replay_of = replayOf})
  redis.call('HSET', BODIES, id, body)
  redis.call('HSET', EP, 'last_id', id)
  redis.call('ZADD', IDS, id, id)
  if not replayOf then redis.call('ZADD', ORIGINALS, now, id) end
  count('pending', 1)
  redis.call('ZADD', CHAINS, 0, link(stream, id))
  refreshChain(stream)
end

-- A finished head hands its chain to the next owed delivery, or the chain ends.
local function leaveChain(id, stream)
  redis.call('ZREM', CHAINS, link(stream, id))
  redis.call('ZREM', DUE, id)
  refreshChain(stream)
end

-- Ends a claim: drops it from the claim index and the in-flight count. False when it was not held.
local function unclaim(id)
  if redis.call('ZREM', CLAIMED, id) == 0 then return false end
  redis.call('HINCRBY', EP, 'in_flight', -1)
  count('in_flight', -1)
  return true
end
