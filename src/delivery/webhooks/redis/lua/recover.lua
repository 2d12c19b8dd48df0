-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, then 'before', a cutoff and a batch (up to `batch`
-- claims made at or before the cutoff, oldest first; the caller repeats while a full batch came back), or
-- 'claims' and (id, claim) pairs to release while still held. Answers how many became pending.
local ids = {}
if ARGV[2] == 'before' then
  ids = redis.call('ZRANGEBYSCORE', CLAIMED, '-inf', ARGV[3], 'LIMIT', 0, ARGV[4])
else
  for i = 3, #ARGV, 2 do
    local d = getD(ARGV[i])
    if d and d.claim == ARGV[i + 1] then ids[#ids + 1] = ARGV[i] end
  end
end
local n = 0
for _, id in ipairs(ids) do
  local d = getD(id)
  if not d then
    redis.call('ZREM', CLAIMED, id)
  elseif unclaim(id) then
    d.status, d.claim = 'pending', nil
    putD(d)
    count('pending', 1)
    refreshChain(d.stream)
    n = n + 1
  end
end
return n
