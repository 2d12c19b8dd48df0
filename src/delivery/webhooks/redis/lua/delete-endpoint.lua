-- KEYS: one endpoint's (prelude.lua). ARGV: endpoint id. Removes the endpoint with its deliveries, bodies,
-- attempts, chains and indexes: every one of them is one of its keys. Answers 0 for none; the caller then
-- drops it from the shared endpoint list and id index and moves the endpoints version.
if redis.call('EXISTS', EP) == 0 then return 0 end
redis.call('DEL', EP, D, BODIES, ATTEMPTS, IDS, ORIGINALS, EVENTS, CHAINS, DUE, CLAIMED, FINISHED, COUNTS)
return 1
