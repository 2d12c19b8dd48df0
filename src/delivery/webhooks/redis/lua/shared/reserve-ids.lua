-- KEYS: the delivery id counter and the id -> endpoint index (both under the hash tag {shared}). ARGV:
-- endpoint id, how many. Hands out that many new delivery ids and indexes them to the endpoint before the
-- per-endpoint script uses them, so a crash in between leaves at worst an index entry for no delivery.
-- Answers the first id.
local last = redis.call('INCRBY', KEYS[1], ARGV[2])
local first = last - tonumber(ARGV[2]) + 1
local fields = {}
for id = first, last do
  fields[#fields + 1] = id
  fields[#fields + 1] = ARGV[1]
end
redis.call('HSET', KEYS[2], unpack(fields))
return first
