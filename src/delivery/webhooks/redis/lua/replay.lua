-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, now, the first of the ids the caller reserved, then
-- the ids of the deliveries to replay, in order. Each becomes a new delivery with the same event id, type
-- and body, `replay_of` set. Answers {'retry'} as enqueue.lua does, else {'ok', new id, ...}.
if not idsFit(ARGV[3]) then return {'retry'} end
local now, next = ARGV[2], tonumber(ARGV[3])
local out = {'ok'}
for i = 4, #ARGV do
  local d = getD(ARGV[i])
  if d then
    local id = tostring(next)
    next = next + 1
    insert(id, d.event_id, d.event_type, d.stream, d.seq, redis.call('HGET', BODIES, d.id), now, d.id)
    out[#out + 1] = id
  end
end
return out
