/**
 * The Redis outbox's state changes, each one Lua script so that it is atomic on the server: a crash never
 * leaves a delivery half claimed, a chain or a count out of step. ARGV[1] is always the key prefix
 * `<prefix>webhooks:` (W); keys are built from it as in redis-outbox-keys.ts (endpoint ids hold no `:`).
 *
 * Per delivery `W d:<id>` (hash, the webhook_deliveries columns) and `W d:<id>:attempts` (list of JSON
 * rows). Per endpoint `W ep:<id>` (hash, the webhook_endpoints columns), `:deliveries` (zset id->id),
 * `:originals` (zset created_at->id, non-replays), `:events` (hash event id -> delivery id, the feed's
 * dedupe), `:streams` (set of streams with owed deliveries). Per chain `W chain:<ep>:<stream>` (zset of the
 * owed ids; the head is the lowest). Shared: `W due` (zset head id -> due time, as CHAIN_DUE_AT in
 * outbox-rows.ts), `W inflight` (set), `W finished` (zset updated_at -> id), `W counts` (hash status -> n),
 * `W ids` / `W attempt-ids` / `W claims` (INCR), `W endpoints` (zset created_at -> id), `W endpoints-version` (INCR on
 * every change that alters which endpoints want what).
 */
import { defineScript } from '../../store/redis/script.js';

const PRELUDE = `
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

local function setOrDel(key, field, value)
  if value == '' then redis.call('HDEL', key, field) else redis.call('HSET', key, field, value) end
end
`;

/** A script with the shared helpers above in scope. */
export const outboxScript = (body: string) => defineScript(`${PRELUDE}\n${body}`);

/** ARGV: W, expected cursor, new cursor, expected endpoints version, now, then per delivery: endpoint,
 * event id, type, stream, seq, body. Answers {'stale'} when the cursor or the endpoints moved since the
 * caller read them, else {'ok', inserted}. Skips (endpoint, event) pairs already enqueued. */
export const feedScript = outboxScript(`
if (redis.call('GET', W .. 'feed-cursor') or '') ~= ARGV[2] then return {'stale'} end
if (redis.call('GET', W .. 'endpoints-version') or '0') ~= ARGV[4] then return {'stale'} end
local n = 0
for i = 6, #ARGV, 6 do
  local ep, eventId = ARGV[i], ARGV[i + 1]
  if redis.call('HEXISTS', ekey(ep) .. ':events', eventId) == 0 then
    local id = insert(ep, eventId, ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[5], false)
    redis.call('HSET', ekey(ep) .. ':events', eventId, id)
    n = n + 1
  end
end
redis.call('SET', W .. 'feed-cursor', ARGV[3])
return {'ok', n}
`);

/** ARGV: W, endpoint, event id, type, stream, seq, body, now. Answers the id, or 0 for no endpoint. */
export const enqueueOneScript = outboxScript(`
if redis.call('EXISTS', ekey(ARGV[2])) == 0 then return 0 end
return insert(ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], false)
`);

/** ARGV: W, delivery id, now. Answers the new id, or 0 for no such delivery. */
export const replayScript = outboxScript(`return replay(ARGV[2], ARGV[3]) or 0`);

/** ARGV: W, endpoint, from, to, now. Replays originals created in [from, to] in id order; answers how many. */
export const replayRangeScript = outboxScript(`
local ids = redis.call('ZRANGEBYSCORE', ekey(ARGV[2]) .. ':originals', ARGV[3], ARGV[4])
table.sort(ids, function(a, b) return tonumber(a) < tonumber(b) end)
for _, id in ipairs(ids) do replay(id, ARGV[5]) end
return #ids
`);

/** ARGV: W, now, limit, chat endpoints paused until (now + chatMinIntervalMs), perEndpoint, heads to look
 * at, fencing token or '', fence key. Answers {'fenced', mark} when the token is below the fence mark
 * (claiming nothing), else {'ok', id, claim, id, claim, ...}; a claim with a token above the mark raises it,
 * as an append does (append-script.ts). */
export const claimScript = outboxScript(`
local now, limit, perEndpoint = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
local token = tonumber(ARGV[7])
local mark = tonumber(redis.call('GET', ARGV[8]) or '0')
if token and token < mark then return {'fenced', tostring(mark)} end
local busy = {}
for _, id in ipairs(redis.call('SMEMBERS', W .. 'inflight')) do
  local ep = redis.call('HGET', dkey(id), 'endpoint_id')
  if ep then busy[ep] = (busy[ep] or 0) + 1 end
end
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
  local kind = redis.call('HGET', ekey(d[1]), 'kind')
  local n = busy[d[1]] or 0
  if kind and n < (kind == 'standard' and perEndpoint or 1) then
    busy[d[1]] = n + 1
    local claim = redis.call('INCR', W .. 'claims')
    redis.call('HSET', dkey(h.id), 'status', 'in_flight', 'updated_at', now, 'claim', claim, 'claim_fence',
      ARGV[7])
    redis.call('SADD', W .. 'inflight', h.id)
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
`);

/** ARGV: W, id, claim, attempt row JSON (without id), status, next attempt at, at, status code or '', error
 * or ''. Logs the attempt; changes the delivery only while that claim is still its claim. Answers 1 when it
 * did, else 0. */
export const recordScript = outboxScript(`
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
redis.call('SREM', W .. 'inflight', id)
count('in_flight', -1)
count(status, 1)
if status == 'delivered' or status == 'failed' then
  redis.call('ZADD', W .. 'finished', ARGV[7], id)
  leaveChain(id, d[3], d[4])
else
  refreshChain(d[3], d[4])
end
return 1
`);

/** ARGV: W, then 'before' and a cutoff (claims made at or before it: a claim is made at its delivery's
 * updated_at), or 'claims' and (id, claim) pairs to release while still held. Answers how many became
 * pending. */
export const recoverScript = outboxScript(`
local ids = {}
if ARGV[2] == 'before' then
  for _, id in ipairs(redis.call('SMEMBERS', W .. 'inflight')) do
    if num(redis.call('HGET', dkey(id), 'updated_at')) <= tonumber(ARGV[3]) then ids[#ids + 1] = id end
  end
else
  for i = 3, #ARGV, 2 do
    if redis.call('HGET', dkey(ARGV[i]), 'claim') == ARGV[i + 1] then ids[#ids + 1] = ARGV[i] end
  end
end
local n = 0
for _, id in ipairs(ids) do
  if redis.call('SREM', W .. 'inflight', id) == 1 then
    redis.call('HSET', dkey(id), 'status', 'pending')
    redis.call('HDEL', dkey(id), 'claim')
    count('in_flight', -1)
    count('pending', 1)
    local d = redis.call('HMGET', dkey(id), 'endpoint_id', 'stream')
    refreshChain(d[1], d[2])
    n = n + 1
  end
end
return n
`);

/** ARGV: W. When the oldest claim in flight was made (its delivery's updated_at), or false when none is. */
export const oldestClaimScript = outboxScript(`
local oldest = false
for _, id in ipairs(redis.call('SMEMBERS', W .. 'inflight')) do
  local at = num(redis.call('HGET', dkey(id), 'updated_at'))
  if not oldest or at < oldest then oldest = at end
end
return oldest and tostring(oldest)
`);

/** ARGV: W, before, batch. Forgets up to `batch` finished deliveries updated before `before`; answers how
 * many. */
export const pruneScript = outboxScript(`
local ids = redis.call('ZRANGEBYSCORE', W .. 'finished', '-inf', '(' .. ARGV[2], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(ids) do
  local d = redis.call('HMGET', dkey(id), 'endpoint_id', 'status', 'event_id')
  local ep = d[1]
  redis.call('DEL', dkey(id), dkey(id) .. ':attempts')
  redis.call('ZREM', ekey(ep) .. ':deliveries', id)
  redis.call('ZREM', ekey(ep) .. ':originals', id)
  if redis.call('HGET', ekey(ep) .. ':events', d[3]) == id then redis.call('HDEL', ekey(ep) .. ':events', d[3]) end
  count(d[2], -1)
  redis.call('ZREM', W .. 'finished', id)
end
return #ids
`);
