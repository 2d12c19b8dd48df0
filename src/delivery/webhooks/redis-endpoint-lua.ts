/**
 * The Redis outbox's endpoint changes that touch deliveries or the feed: each one Lua script, with the
 * helpers and key layout of redis-outbox-lua.ts. ARGV[1] is the key prefix W.
 */
import { outboxScript } from './redis-outbox-lua.js';

/** ARGV: W, id, now, re-enable ('1'/'0'), enabled changes ('1'/'0'), then field/value pairs. Answers 0
 * for no endpoint. Re-enabling clears the reason, the failure clock and the pause, and makes held
 * deliveries due now. */
export const updateEndpointScript = outboxScript(`
local ep, now = ARGV[2], ARGV[3]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
redis.call('HSET', ekey(ep), 'updated_at', now)
for i = 6, #ARGV, 2 do redis.call('HSET', ekey(ep), ARGV[i], ARGV[i + 1]) end
if ARGV[4] == '1' then
  redis.call('HDEL', ekey(ep), 'disabled_reason', 'failing_since')
  redis.call('HSET', ekey(ep), 'paused_until', 0)
  for _, stream in ipairs(redis.call('SMEMBERS', ekey(ep) .. ':streams')) do
    for _, id in ipairs(redis.call('ZRANGE', chainKey(ep, stream), 0, -1)) do
      local d = redis.call('HMGET', dkey(id), 'status', 'next_attempt_at')
      if d[1] == 'pending' and num(d[2]) > tonumber(now) then redis.call('HSET', dkey(id), 'next_attempt_at', now) end
    end
  end
end
if ARGV[5] == '1' then refreshEndpoint(ep) end
redis.call('INCR', W .. 'endpoints-version')
return 1
`);

/** ARGV: W, id. Removes the endpoint with its deliveries, attempts and chains; answers 0 for none. */
export const deleteEndpointScript = outboxScript(`
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', ekey(ep) .. ':deliveries', 0, -1)) do
  count(redis.call('HGET', dkey(id), 'status'), -1)
  redis.call('SREM', W .. 'inflight', id)
  redis.call('ZREM', W .. 'due', id)
  redis.call('ZREM', W .. 'finished', id)
  redis.call('DEL', dkey(id), dkey(id) .. ':attempts')
end
for _, stream in ipairs(redis.call('SMEMBERS', ekey(ep) .. ':streams')) do redis.call('DEL', chainKey(ep, stream)) end
redis.call('DEL', ekey(ep), ekey(ep) .. ':deliveries', ekey(ep) .. ':originals', ekey(ep) .. ':events',
  ekey(ep) .. ':streams')
redis.call('ZREM', W .. 'endpoints', ep)
redis.call('INCR', W .. 'endpoints-version')
return 1
`);

/** ARGV: W, id, new secret, previous secret expires at, now. Answers 0 for no endpoint. */
export const rotateScript = outboxScript(`
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
redis.call('HSET', ekey(ep), 'previous_secret', redis.call('HGET', ekey(ep), 'secret'),
  'previous_secret_expires_at', ARGV[4], 'secret', ARGV[3], 'updated_at', ARGV[5])
return 1
`);

/** ARGV: W, id, reason, now. */
export const disableScript = outboxScript(`
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return 0 end
redis.call('HSET', ekey(ep), 'enabled', '0', 'disabled_reason', ARGV[3], 'updated_at', ARGV[4])
refreshEndpoint(ep)
redis.call('INCR', W .. 'endpoints-version')
return 1
`);

/** ARGV: W, id, until. */
export const pauseScript = outboxScript(`
if redis.call('EXISTS', ekey(ARGV[2])) == 0 then return 0 end
pause(ARGV[2], ARGV[3])
return 1
`);

/** ARGV: W, id, failed ('1'/'0'), at. Answers when the endpoint started failing, or nil. */
export const healthScript = outboxScript(`
local ep = ARGV[2]
if redis.call('EXISTS', ekey(ep)) == 0 then return false end
if ARGV[3] == '0' then
  redis.call('HDEL', ekey(ep), 'failing_since')
  return false
end
redis.call('HSETNX', ekey(ep), 'failing_since', ARGV[4])
return redis.call('HGET', ekey(ep), 'failing_since')
`);
