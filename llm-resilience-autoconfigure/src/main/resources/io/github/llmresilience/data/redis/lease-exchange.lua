-- One pod's lease exchange for one quota scope, in one round trip, on the server's clock.
--
-- Per scope, one hash holds a bucket of the scope's capacity per minute that refills
-- continuously ('r' requests, 't' tokens, 'at' the last refill in microseconds) and one
-- field per holder, 'h:<holder>' = 'sequence:requests:tokens:end' (the holder's last
-- lease: what it granted and its end in microseconds). What the bucket holds and what
-- live leases were granted together never exceed the capacity: the bucket refills only
-- into room no live lease holds. A lease nobody returns (its pod died) holds its room
-- until its end, then is gone.
--
-- Idempotent: an exchange with the holder's last sequence is answered with the same lease
-- and changes nothing; a lower sequence is stale and grants nothing. What a holder
-- returns is credited only when it is the holder's live lease just before this exchange,
-- and at most what that lease granted.
--
-- KEYS[1]: the scope's hash, e.g. "llm-resilience:{orders}:lease:acct/gpt-4o"
-- ARGV: holder, sequence, capacity requests, capacity tokens (per minute; 0: not
--   leased), period ms, returned requests, returned tokens, asked requests, asked
--   tokens, debit requests, debit tokens, urgent requests (of those asked: for calls
--   that cannot wait a period; absent: none)
--
-- The bucket keeps a reserve of half a second's refill of requests: an ask takes its
-- urgent requests from the whole bucket and the rest only from above the reserve, so
-- that a busy pod's background line does not take the refill that another pod's
-- interactive calls wait for. The reserve is not lost: the bucket refills above it, and
-- urgent asks take it.
-- Returns "sequence requests tokens serverMillis".
local key = KEYS[1]
local holder = ARGV[1]
local seq = tonumber(ARGV[2])
local cap = { tonumber(ARGV[3]), tonumber(ARGV[4]) }
local period = tonumber(ARGV[5]) * 1000
local returned = { tonumber(ARGV[6]), tonumber(ARGV[7]) }
local ask = { tonumber(ARGV[8]), tonumber(ARGV[9]) }
local debit = { tonumber(ARGV[10]), tonumber(ARGV[11]) }
local urgent = math.max(tonumber(ARGV[12] or '0') or 0, 0)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local millis = math.floor(now / 1000)
-- A holder's record is kept ten minutes after its lease ended (stale exchanges stay
-- stale), and the scope's hash ten minutes after its last exchange.
local keep = 600000
local mine = 'h:' .. holder
local dims = { 'r', 't' }

local fields = redis.call('HGETALL', key)
local state = {}
local others = { 0, 0 }
local record = nil
for i = 1, #fields, 2 do
  local name = fields[i]
  local value = fields[i + 1]
  if string.sub(name, 1, 2) == 'h:' then
    local s, gr, gt, e = string.match(value, '^(%d+):(%d+):(%d+):(%d+)$')
    if s then
      s, gr, gt, e = tonumber(s), tonumber(gr), tonumber(gt), tonumber(e)
      if name == mine then
        record = { s, gr, gt, e }
      elseif e > now then
        others[1] = others[1] + gr
        others[2] = others[2] + gt
      elseif e + keep * 1000 < now then
        redis.call('HDEL', key, name)
      end
    end
  else
    state[name] = value
  end
end

if record and record[1] == seq then
  return string.format('%d %d %d %d', seq, record[2], record[3], millis)
end
if record and record[1] > seq then
  return string.format('%d 0 0 %d', seq, millis)
end

local live = record and record[4] > now
local at = tonumber(state['at'] or '') or now
if at > now then
  at = now
end
local grant = { 0, 0 }
for d = 1, 2 do
  local level = tonumber(state[dims[d]] or '')
  if level == nil then
    -- A scope the store does not know starts full, as the provider's bucket does.
    level = cap[d]
  end
  local held = others[d]
  if live then
    held = held + record[d + 1]
  end
  -- Refill into the room no live lease holds (the holder's own lease still live).
  level = math.min(level + cap[d] * (now - at) / 60000000, cap[d] - held)
  if live and record[1] == seq - 1 then
    level = level + math.min(math.max(returned[d], 0), record[d + 1])
  end
  level = level - math.max(debit[d], 0)
  -- The holder's previous lease ended: only the others' live leases hold room now.
  level = math.min(level, cap[d] - others[d])
  if cap[d] > 0 and ask[d] > 0 and level >= 1 then
    if d == 1 then
      local reserve = math.ceil(cap[1] / 120)
      local first = math.min(urgent, ask[1], math.floor(level))
      local rest = math.min(ask[1] - first, math.max(0, math.floor(level - first - reserve)))
      grant[1] = first + rest
    else
      grant[d] = math.min(ask[d], math.floor(level))
    end
    level = level - grant[d]
  end
  state[dims[d]] = level
end

redis.call('HSET', key, 'r', string.format('%.6f', state['r']), 't', string.format('%.6f', state['t']),
  'at', string.format('%d', now), mine, string.format('%d:%d:%d:%d', seq, grant[1], grant[2], now + period))
redis.call('PEXPIRE', key, keep)
return string.format('%d %d %d %d', seq, grant[1], grant[2], millis)
