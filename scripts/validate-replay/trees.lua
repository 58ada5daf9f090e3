-- The Lua program of scripts/validate-replay.sh: binary trees, string building and a large
-- table, every object a realloc of the C library (lua_newstate with the default allocator).
local function make(d)
  if d == 0 then return {} end
  return {make(d - 1), make(d - 1)}
end
local function check(t)
  if t[1] == nil then return 1 end
  return 1 + check(t[1]) + check(t[2])
end
local total = 0
local long = make(14)
for round = 1, 12 do
  local t = make(15)
  total = total + check(t)
end
local words = {}
for i = 1, 200000 do
  words[#words + 1] = string.format("w%d-%s", i, string.rep("x", i % 40))
  if #words > 50000 then words = {} end
end
local index = {}
for i = 1, 300000 do index["k" .. (i * 7919 % 100003)] = {i, tostring(i)} end
print(total + check(long))
