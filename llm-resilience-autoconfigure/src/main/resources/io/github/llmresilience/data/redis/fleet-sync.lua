-- One pod's sync with the fleet, in one round trip and on the server's clock.
--
-- Idempotent: a sync may run after the pod stopped waiting for it (a stalled or slow
-- server runs what is queued on the connection when it resumes) and the pod then sends
-- its content again. So counts come in numbered batches applied once per pod
-- incarnation (the number is recorded before anything is applied, so a script refused
-- half-way never applies a batch twice), every end is absolute on the server's clock,
-- and the pod that holds a probe lease is granted it again when it asks.
--
-- KEYS[1]: the namespace's operation log; every other key shares its hash tag, so the
-- whole namespace lives in one Cluster slot.
-- ARGV[1]: the key prefix, e.g. "llm-resilience:{orders}:"
-- ARGV[2]: the counting window in seconds
-- ARGV[3]: the last operation this pod applied (-1: a new pod, which takes the state as it is)
-- ARGV[4]: this pod's id (names the prober, counts the pod alive)
-- ARGV[5]: this pod's incarnation (its batches' numbers are remembered under it)
-- ARGV[6]: the epoch the pod last saw ('' for none)
-- ARGV[7]: liveness in ms: a lease holder that has not synced within it has left
-- ARGV[8]: the number of failure domains D, then 12 values per domain:
--   domain, minimum calls, failure rate %, slow-call rate %, open ms, open max ms,
--   probe interval ms (0: none), wants probe (0/1), holds probe (0/1), lease ms,
--   spend window index (-1: spend not judged), spend window ms
-- then the number of batches B, then per batch: sequence, at ms (0: unknown), the number
-- of counts C, then 8 values per count: domain, calls, failures, slow, spend window,
--   spend calls, spend, spend expected at the traffic classes' medians
-- then the number of writes W, then 4 values per write: kind, subject, value, number
-- Returns the fleet's state as lines of tab-separated fields (see RedisFleetStore).
local prefix = ARGV[1]
local window = tonumber(ARGV[2])
local known_seq = tonumber(ARGV[3])
local pod = ARGV[4]
local incarnation = ARGV[5]
local known_epoch = ARGV[6]
local liveness = tonumber(ARGV[7])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local second = tonumber(t[1])
local oldest = second - window
-- The longest a hold may be asked for: a park until a quota's reset may be a month away.
local hold_max = 400 * 86400000
local changed = false

-- The batches this incarnation has had applied: recorded first (see above).
local batch_key = prefix .. 'batch:' .. pod .. ':' .. incarnation
local applied = tonumber(redis.call('GET', batch_key) or '0') or 0

-- The epoch: a store that lost its keys (an empty restart, FLUSHALL, eviction) has none,
-- and gets a new one, which tells every pod that knew the old one to publish again.
local epoch_key = prefix .. 'epoch'
local epoch = redis.call('GET', epoch_key)
if not epoch then
  epoch = pod .. '@' .. string.format('%d', now)
  redis.call('SET', epoch_key, epoch)
end

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
  local b = redis.call('HMGET', prefix .. 'b:' .. domain, 's', 'u', 'g', 'n', 'w', 't')
  return { s = b[1] or 'closed', u = tonumber(b[2] or '0') or 0, g = tonumber(b[3] or '0') or 0,
    n = tonumber(b[4] or '0') or 0, w = b[5] or '', t = tonumber(b[6] or '0') or 0 }
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

-- Whether an operator lifted the subject (op: release, unpark, unlock) after the last
-- operation the pod applied, or since the store's loss for a pod of its previous life: a
-- hold it sends then is older than the lift (one it republishes or mirrors), not news.
local lifts = { g = 'release', p = 'unpark', l = 'unlock' }
local function lifted_unseen(kind, subject)
  local from = -1
  if known_epoch == epoch then from = known_seq elseif known_epoch ~= '' then from = 0 end
  if from < 0 then return false end
  local seq = tonumber(redis.call('GET', prefix .. 'seq') or '0')
  if seq <= from then return false end
  local suffix = '|' .. lifts[kind] .. '|' .. subject
  for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, math.min(seq - from, 200) - 1)) do
    if string.sub(entry, -#suffix) == suffix then return true end
  end
  return false
end

-- A hold (gate, park, lock) until an absolute end: kept with its expiry, moved only later.
local function hold(kind, subject, untl, reason)
  if untl <= now then return end
  if lifted_unseen(kind, subject) then return end
  untl = math.min(untl, now + hold_max)
  local key = prefix .. kind .. ':' .. subject
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
local d_count = tonumber(ARGV[8])
local domains = {}
local i = 9
for n = 1, d_count do
  domains[n] = { name = ARGV[i], min = tonumber(ARGV[i + 1]), frate = tonumber(ARGV[i + 2]),
    srate = tonumber(ARGV[i + 3]), open = tonumber(ARGV[i + 4]), open_max = tonumber(ARGV[i + 5]),
    probe = tonumber(ARGV[i + 6]), wants = ARGV[i + 7] == '1', holds = ARGV[i + 8] == '1',
    lease = tonumber(ARGV[i + 9]), swin = tonumber(ARGV[i + 10]) or -1, swin_ms = tonumber(ARGV[i + 11]) or 0 }
  i = i + 12
end
local by_name = {}
for _, d in ipairs(domains) do by_name[d.name] = d end

-- Read the batches, and record the last one before applying any.
local b_count = tonumber(ARGV[i])
i = i + 1
local batches = {}
local last = applied
for n = 1, b_count do
  local batch = { seq = tonumber(ARGV[i]), at = tonumber(ARGV[i + 1]) or 0, counts = {} }
  local c_count = tonumber(ARGV[i + 2])
  i = i + 3
  for c = 1, c_count do
    batch.counts[c] = { name = ARGV[i], calls = tonumber(ARGV[i + 1]) or 0, failures = tonumber(ARGV[i + 2]) or 0,
      slow = tonumber(ARGV[i + 3]) or 0, swin = tonumber(ARGV[i + 4]) or -1, scalls = tonumber(ARGV[i + 5]) or 0,
      spend = ARGV[i + 6], expected = ARGV[i + 7] }
    i = i + 8
  end
  if batch.seq > applied then
    batches[#batches + 1] = batch
    if batch.seq > last then last = batch.seq end
  end
end
if last > applied then
  -- Kept long after the pod last synced: a script that waited on a stalled server longer
  -- than this could count its batch again.
  redis.call('SET', batch_key, string.format('%d', last), 'PX', 86400000)
end

-- Apply the batches: counts into the second they were counted in (the server's clock as
-- the pod knew it, never later than now), spend into its window.
for _, batch in ipairs(batches) do
  local sec = second
  if batch.at > 0 then sec = math.min(second, math.floor(batch.at / 1000)) end
  for _, c in ipairs(batch.counts) do
    if c.calls > 0 and sec > oldest then
      local ckey = prefix .. 'c:' .. c.name
      redis.call('HINCRBY', ckey, sec .. ':c', c.calls)
      if c.failures > 0 then redis.call('HINCRBY', ckey, sec .. ':f', c.failures) end
      if c.slow > 0 then redis.call('HINCRBY', ckey, sec .. ':s', c.slow) end
      redis.call('EXPIRE', ckey, window * 2 + 1)
    end
    local d = by_name[c.name]
    if c.scalls > 0 and c.swin >= 0 and d and d.swin >= 0 and d.swin_ms > 0 and c.swin >= d.swin - 1 then
      local skey = prefix .. 's:' .. c.name
      redis.call('HINCRBY', skey, c.swin .. ':c', c.scalls)
      redis.call('HINCRBYFLOAT', skey, c.swin .. ':s', c.spend)
      redis.call('HINCRBYFLOAT', skey, c.swin .. ':e', c.expected)
      redis.call('PEXPIRE', skey, d.swin_ms * 3)
    end
  end
end

-- Apply the writes.
local hinted = {}
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
    -- An operator's command: forced-open, disabled, closed (close or reset). A status
    -- republished after a loss that the store already holds changes nothing.
    local b = breaker(subject)
    if value == 'closed' or b.s ~= value then
      b.s = value
      b.g = b.g + 1
      b.u = 0
      b.w = 'by an operator'
      if value == 'closed' then
        b.n = 0
        redis.call('DEL', prefix .. 'c:' .. subject)
      end
      set_breaker(subject, b)
    end
  elseif kind == 'open' then
    -- An opening a pod republishes after the store lost it: never over an operator's
    -- status (an operator's close included: the republished opening is from before the
    -- loss, the close reached the store after it), never shortening an opening the store
    -- holds.
    local b = breaker(subject)
    local closed_by_operator = b.s == 'closed' and b.w == 'by an operator'
    if (b.s == 'closed' and not closed_by_operator) or (b.s == 'open' and b.u < number) then
      if b.s == 'closed' then
        b.n = math.max(b.n, 1)
        b.w = value
      end
      b.s = 'open'
      b.u = math.min(number, now + hold_max)
      b.g = b.g + 1
      set_breaker(subject, b)
    end
  elseif kind == 'trial' then
    -- A prober's result, applied only to the opening it probed (compare-and-set on the
    -- generation); the lease is given back only by its holder (compare-and-delete). A
    -- trial of a pod whose own breaker had opened while the fleet's stayed closed tells
    -- the other such pods that the domain answers again.
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
    elseif b.s == 'closed' and value == 'ok' then
      redis.call('HSET', prefix .. 'b:' .. subject, 't', string.format('%d', now))
      redis.call('SADD', prefix .. 'bi', subject)
      changed = true
    end
    local lease = prefix .. 'probe:' .. subject
    if redis.call('GET', lease) == pod then redis.call('DEL', lease) end
  elseif kind == 'opened' then
    -- A pod's own breaker opened on its own calls: the fleet judges the domain now on its
    -- rates, the minimum met by that pod's calls (one pod's trouble alone, under a fleet
    -- that answers well, stays below the rates).
    hinted[subject] = value
  elseif kind == 'unprobe' then
    local lease = prefix .. 'probe:' .. subject
    if redis.call('GET', lease) == pod then redis.call('DEL', lease) end
  end
end

-- Count, decide and report each domain. The answer is one line per record, fields
-- separated by tabs (names and reasons never hold either).
local pods = prefix .. 'pods'
local lines = { 'now\t' .. string.format('%d', now), 'epoch\t' .. epoch, 'batch\t' .. string.format('%d', last) }
for _, d in ipairs(domains) do
  local ckey = prefix .. 'c:' .. d.name
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
  local hint = hinted[d.name]
  if b.s == 'closed' and calls > 0 and (calls >= d.min or hint)
      and (failures * 100 >= d.frate * calls or slow * 100 >= d.srate * calls) then
    b.s = 'open'
    b.n = b.n + 1
    b.u = now + open_ms(d, b.n)
    b.g = b.g + 1
    b.w = string.format('failure rate %.1f%%, slow-call rate %.1f%% of %d calls across the fleet',
      failures * 100 / calls, slow * 100 / calls, calls)
    if hint and calls < d.min then b.w = b.w .. ', after ' .. hint end
    set_breaker(d.name, b)
    redis.call('DEL', ckey)
  end
  -- The probe lease: a holder that left the pods alive frees it; the holder that asks
  -- again, or says it still holds it, keeps it; else the first pod to ask once the open
  -- time passed (or whose own breaker opened while the fleet's is closed) wins it.
  local lease = prefix .. 'probe:' .. d.name
  local holder = redis.call('GET', lease)
  if holder and holder ~= pod then
    local seen = redis.call('ZSCORE', pods, holder)
    if not seen or tonumber(seen) < now - liveness then
      redis.call('DEL', lease)
      holder = false
    end
  end
  local granted = 0
  if holder == pod then
    if d.wants or d.holds then redis.call('PEXPIRE', lease, d.lease) end
    if d.wants then granted = 1 end
  elseif not holder and d.wants and ((b.s == 'open' and now >= b.u) or b.s == 'closed') then
    redis.call('SET', lease, pod, 'PX', d.lease)
    holder = pod
    granted = 1
  end
  -- Spend: every pod's answers and spend of one window summed, by the pods' own window
  -- index (epoch-aligned, so pods agree on it); the two latest windows are kept.
  local scalls, sspend, sexpected = 0, '0', '0'
  if d.swin >= 0 and d.swin_ms > 0 then
    local skey = prefix .. 's:' .. d.name
    local v = redis.call('HMGET', skey, d.swin .. ':c', d.swin .. ':s', d.swin .. ':e')
    scalls = tonumber(v[1] or '0') or 0
    sspend = v[2] or '0'
    sexpected = v[3] or '0'
    local old = {}
    for _, f in ipairs(redis.call('HKEYS', skey)) do
      local w = tonumber(string.match(f, '^(%d+):'))
      if w == nil or w < d.swin - 1 then old[#old + 1] = f end
    end
    if #old > 0 then redis.call('HDEL', skey, unpack(old)) end
  end
  lines[#lines + 1] = table.concat({ 'd', d.name, b.s, string.format('%d', b.u), b.g, b.n, calls, failures, slow,
    holder or '', granted, b.w, string.format('%d', d.swin), string.format('%d', scalls), sspend,
    string.format('%d', b.t), sexpected }, '\t')
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

-- Operations since the pod's last one; a new pod (-1) takes the state as it is. A pod of
-- the store's previous life (another epoch: the log it knew is gone) gets every lift made
-- since the loss, which it has not seen and must apply before it republishes its holds.
local seq = tonumber(redis.call('GET', prefix .. 'seq') or '0')
local from = -1
if known_epoch == epoch then from = known_seq elseif known_epoch ~= '' then from = 0 end
if from >= 0 and seq > from then
  local entries = redis.call('LRANGE', KEYS[1], 0, seq - from - 1)
  for e = #entries, 1, -1 do
    local s, kind, subject = string.match(entries[e], '^(%d+)|([^|]+)|(.*)$')
    if tonumber(s) > from then lines[#lines + 1] = table.concat({ 'o', s, kind, subject }, '\t') end
  end
end
lines[#lines + 1] = 'seq\t' .. seq

-- The pods alive: those that synced within the counting window, this one included (quota
-- pools give each pod its part of a scope's capacity; a lease holder not seen within the
-- liveness has left).
redis.call('ZADD', pods, now, pod)
redis.call('ZREMRANGEBYSCORE', pods, '-inf', now - window * 1000)
redis.call('PEXPIRE', pods, window * 2000)
lines[#lines + 1] = 'pods\t' .. redis.call('ZCARD', pods)

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
