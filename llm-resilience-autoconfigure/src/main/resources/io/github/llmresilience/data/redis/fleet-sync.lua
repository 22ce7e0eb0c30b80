-- One pod's sync with the fleet, in one round trip and on the server's clock.
-- KEYS[1]: the namespace's operation log; every other key shares its hash tag, so the
-- whole namespace lives in one Cluster slot.
-- ARGV[1]: the key prefix, e.g. "llm-resilience:{orders}:"
-- ARGV[2]: the counting window in seconds
-- ARGV[3]: the last operation this pod applied (-1: a new pod, which takes the state as it is)
-- ARGV[4]: this pod's id (names the prober)
-- ARGV[5]: the number of failure domains D, then 16 values per domain:
--   domain, calls, failures, slow, minimum calls, failure rate %, slow-call rate %,
--   open ms, open max ms, probe interval ms (0: none), wants probe (0/1), lease ms,
--   spend window index (-1: spend not judged), spend window ms, spend calls, spend
-- then the number of writes W, then 4 values per write: kind, subject, value, number
-- Returns the fleet's state as lines of tab-separated fields (see RedisFleetStore).
local prefix = ARGV[1]
local window = tonumber(ARGV[2])
local known_seq = tonumber(ARGV[3])
local pod = ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local second = tonumber(t[1])
local changed = false

local function open_ms(d, openings)
  local max = d.open_max
  local wait = math.min(d.open, max)
  local i = 1
  while i < openings and wait < max do
    if wait > max / 2 then wait = max else wait = wait * 2 end
    i = i + 1
  end
  if d.probe > 0 and d.probe < wait then wait = d.probe end
  return wait
end

local function breaker(domain)
  local b = redis.call('HMGET', prefix .. 'b:' .. domain, 's', 'u', 'g', 'n', 'w')
  return { s = b[1] or 'closed', u = tonumber(b[2] or '0') or 0, g = tonumber(b[3] or '0') or 0,
    n = tonumber(b[4] or '0') or 0, w = b[5] or '' }
end

local function set_breaker(domain, b)
  redis.call('HSET', prefix .. 'b:' .. domain, 's', b.s, 'u', string.format('%d', b.u), 'g', b.g, 'n', b.n,
    'w', b.w)
  redis.call('SADD', prefix .. 'bi', domain)
  changed = true
end

local function log_op(kind, subject)
  local seq = redis.call('INCR', prefix .. 'seq')
  redis.call('LPUSH', KEYS[1], seq .. '|' .. kind .. '|' .. subject)
  redis.call('LTRIM', KEYS[1], 0, 199)
  changed = true
end

-- A hold (gate, park, lock): kept with its expiry, moved only later.
local function hold(kind, subject, millis, reason)
  if millis <= 0 then return end
  local key = prefix .. kind .. ':' .. subject
  local untl = now + millis
  local old = redis.call('GET', key)
  if old then
    local old_until = tonumber(string.match(old, '^(%d+)|'))
    if old_until and old_until >= untl then return end
  end
  redis.call('SET', key, string.format('%d', untl) .. '|' .. reason, 'PXAT', untl)
  redis.call('SADD', prefix .. kind .. 'i', subject)
  changed = true
end

local function lift(kind, subject, op)
  redis.call('DEL', prefix .. kind .. ':' .. subject)
  redis.call('SREM', prefix .. kind .. 'i', subject)
  log_op(op, subject)
end

-- Read the domains.
local d_count = tonumber(ARGV[5])
local domains = {}
local i = 6
for n = 1, d_count do
  domains[n] = { name = ARGV[i], calls = tonumber(ARGV[i + 1]), failures = tonumber(ARGV[i + 2]),
    slow = tonumber(ARGV[i + 3]), min = tonumber(ARGV[i + 4]), frate = tonumber(ARGV[i + 5]),
    srate = tonumber(ARGV[i + 6]), open = tonumber(ARGV[i + 7]), open_max = tonumber(ARGV[i + 8]),
    probe = tonumber(ARGV[i + 9]), wants = ARGV[i + 10] == '1', lease = tonumber(ARGV[i + 11]),
    swin = tonumber(ARGV[i + 12]) or -1, swin_ms = tonumber(ARGV[i + 13]) or 0, scalls = tonumber(ARGV[i + 14]) or 0,
    spend = ARGV[i + 15] }
  i = i + 16
end
local by_name = {}
for _, d in ipairs(domains) do by_name[d.name] = d end

-- Apply the writes.
local w_count = tonumber(ARGV[i])
i = i + 1
for n = 1, w_count do
  local kind, subject, value, number = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3]) or 0
  i = i + 4
  if kind == 'gate' then hold('g', subject, number, value)
  elseif kind == 'park' then hold('p', subject, number, value)
  elseif kind == 'lock' then hold('l', subject, number, value)
  elseif kind == 'release' then lift('g', subject, 'release')
  elseif kind == 'unpark' then lift('p', subject, 'unpark')
  elseif kind == 'unlock' then lift('l', subject, 'unlock')
  elseif kind == 'chain' then
    redis.call('SET', prefix .. 'ch:' .. subject, value)
    redis.call('SADD', prefix .. 'chi', subject)
    changed = true
  elseif kind == 'rules' then
    redis.call('SET', prefix .. 'rules', value)
    changed = true
  elseif kind == 'breaker' then
    -- An operator's command: forced-open, disabled, closed (close or reset).
    local b = breaker(subject)
    b.s = value
    b.g = b.g + 1
    b.u = 0
    b.w = 'by an operator'
    if value == 'closed' then
      b.n = 0
      redis.call('DEL', prefix .. 'c:' .. subject)
    end
    set_breaker(subject, b)
  elseif kind == 'trial' then
    -- A prober's result, applied only to the opening it probed (compare-and-set on the
    -- generation); the lease is given back only by its holder (compare-and-delete).
    local b = breaker(subject)
    local d = by_name[subject]
    if b.s == 'open' and b.g == number and d then
      if value == 'ok' then
        b.s = 'closed'
        b.n = 0
        b.u = 0
        b.w = 'trial succeeded'
        redis.call('DEL', prefix .. 'c:' .. subject)
      else
        b.n = b.n + 1
        b.u = now + open_ms(d, b.n)
        b.w = 'trial failed'
      end
      b.g = b.g + 1
      set_breaker(subject, b)
    end
    local lease = prefix .. 'probe:' .. subject
    if redis.call('GET', lease) == pod then redis.call('DEL', lease) end
  elseif kind == 'unprobe' then
    local lease = prefix .. 'probe:' .. subject
    if redis.call('GET', lease) == pod then redis.call('DEL', lease) end
  end
end

-- Count, decide and report each domain. The answer is one line per record, fields
-- separated by tabs (names and reasons never hold either).
local lines = { 'now\t' .. string.format('%d', now) }
local oldest = second - window
for _, d in ipairs(domains) do
  local ckey = prefix .. 'c:' .. d.name
  if d.calls > 0 then
    redis.call('HINCRBY', ckey, second .. ':c', d.calls)
    if d.failures > 0 then redis.call('HINCRBY', ckey, second .. ':f', d.failures) end
    if d.slow > 0 then redis.call('HINCRBY', ckey, second .. ':s', d.slow) end
    redis.call('EXPIRE', ckey, window * 2 + 1)
  end
  local calls, failures, slow = 0, 0, 0
  local fields = redis.call('HGETALL', ckey)
  local stale = {}
  for f = 1, #fields, 2 do
    local sec, what = string.match(fields[f], '^(%d+):(%a)$')
    sec = tonumber(sec)
    if sec == nil or sec <= oldest then
      stale[#stale + 1] = fields[f]
    else
      local v = tonumber(fields[f + 1]) or 0
      if what == 'c' then calls = calls + v elseif what == 'f' then failures = failures + v else slow = slow + v end
    end
  end
  if #stale > 0 then redis.call('HDEL', ckey, unpack(stale)) end
  local b = breaker(d.name)
  if b.s == 'closed' and calls >= d.min and calls > 0
      and (failures * 100 >= d.frate * calls or slow * 100 >= d.srate * calls) then
    b.s = 'open'
    b.n = b.n + 1
    b.u = now + open_ms(d, b.n)
    b.g = b.g + 1
    b.w = string.format('failure rate %.1f%%, slow-call rate %.1f%% of %d calls across the fleet',
      failures * 100 / calls, slow * 100 / calls, calls)
    set_breaker(d.name, b)
    redis.call('DEL', ckey)
  end
  local granted = 0
  local lease = prefix .. 'probe:' .. d.name
  if b.s == 'open' and now >= b.u and d.wants then
    if redis.call('SET', lease, pod, 'NX', 'PX', d.lease) then granted = 1 end
  end
  local prober = redis.call('GET', lease) or ''
  -- Spend: every pod's answers and spend of one window summed, by the pods' own window
  -- index (epoch-aligned, so pods agree on it); the two latest windows are kept.
  local scalls, sspend = 0, '0'
  if d.swin >= 0 and d.swin_ms > 0 then
    local skey = prefix .. 's:' .. d.name
    if d.scalls > 0 then
      redis.call('HINCRBY', skey, d.swin .. ':c', d.scalls)
      redis.call('HINCRBYFLOAT', skey, d.swin .. ':s', d.spend)
    end
    redis.call('PEXPIRE', skey, d.swin_ms * 3)
    local v = redis.call('HMGET', skey, d.swin .. ':c', d.swin .. ':s')
    scalls = tonumber(v[1] or '0') or 0
    sspend = v[2] or '0'
    local old = {}
    for _, f in ipairs(redis.call('HKEYS', skey)) do
      local w = tonumber(string.match(f, '^(%d+):'))
      if w == nil or w < d.swin - 1 then old[#old + 1] = f end
    end
    if #old > 0 then redis.call('HDEL', skey, unpack(old)) end
  end
  lines[#lines + 1] = table.concat({ 'd', d.name, b.s, string.format('%d', b.u), b.g, b.n, calls, failures, slow,
    prober, granted, b.w, string.format('%d', d.swin), string.format('%d', scalls), sspend }, '\t')
end

-- Holds in force.
for _, kind in ipairs({ 'g', 'p', 'l' }) do
  local index = prefix .. kind .. 'i'
  for _, subject in ipairs(redis.call('SMEMBERS', index)) do
    local v = redis.call('GET', prefix .. kind .. ':' .. subject)
    if v then
      local untl, reason = string.match(v, '^(%d+)|(.*)$')
      lines[#lines + 1] = table.concat({ 'h', kind, subject, untl, reason }, '\t')
    else
      redis.call('SREM', index, subject)
    end
  end
end

-- Operations since the pod's last one; a new pod (-1) takes the state as it is.
local seq = tonumber(redis.call('GET', prefix .. 'seq') or '0')
if known_seq >= 0 and seq > known_seq then
  local entries = redis.call('LRANGE', KEYS[1], 0, seq - known_seq - 1)
  for e = #entries, 1, -1 do
    local s, kind, subject = string.match(entries[e], '^(%d+)|([^|]+)|(.*)$')
    if tonumber(s) > known_seq then lines[#lines + 1] = table.concat({ 'o', s, kind, subject }, '\t') end
  end
end
lines[#lines + 1] = 'seq\t' .. seq

-- Chains edited by an operator.
for _, name in ipairs(redis.call('SMEMBERS', prefix .. 'chi')) do
  local v = redis.call('GET', prefix .. 'ch:' .. name)
  if v then lines[#lines + 1] = table.concat({ 'c', name, v }, '\t') end
end

-- Classification rules an operator set.
local rules = redis.call('GET', prefix .. 'rules')
if rules then lines[#lines + 1] = 'r\t' .. rules end

if changed then redis.call('PUBLISH', prefix .. 'hints', pod) end
return table.concat(lines, '\n')
