-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, reason, now. Its owed deliveries stay pending (a
-- disabled endpoint has nothing due). Answers 0 for no endpoint; the caller then moves the endpoints version.
if redis.call('EXISTS', EP) == 0 then return 0 end
redis.call('HSET', EP, 'enabled', '0', 'disabled_reason', ARGV[2], 'updated_at', ARGV[3])
return 1
