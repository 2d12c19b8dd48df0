-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id, new secret, previous secret expires at, now.
-- Answers 0 for no endpoint.
if redis.call('EXISTS', EP) == 0 then return 0 end
redis.call('HSET', EP, 'previous_secret', redis.call('HGET', EP, 'secret'), 'previous_secret_expires_at', ARGV[3],
  'secret', ARGV[2], 'updated_at', ARGV[4])
return 1
