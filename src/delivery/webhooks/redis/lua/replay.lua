-- KEYS: none (built from W). ARGV: W, delivery id, now. Answers the new id, or 0 for no such delivery.
return replay(ARGV[2], ARGV[3]) or 0
