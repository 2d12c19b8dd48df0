-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, until. Nothing of the endpoint is due before
-- `until` (claims and the due time read its `paused_until`). Answers 0 for no endpoint.
if redis.call('EXISTS', EP) == 0 then return 0 end
redis.call('HSET', EP, 'paused_until', ARGV[2])
return 1
