-- Refresh-token rotation: each wrk thread owns one connection and one session, and presents the
-- token it received last, so every request is a real rotation (not a parent-reuse answer).
-- args[1]: a file with one refresh token per line (at least as many as threads).
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

function init(args)
  local index = 0
  for line in io.lines(args[1]) do
    index = index + 1
    if index == id then token = line end
  end
  failures = 0
end

function request()
  return wrk.format("POST", "/token?grant_type=refresh_token",
    { ["Content-Type"] = "application/json" }, '{"refresh_token":"' .. token .. '"}')
end

function response(status, headers, body)
  local next = body:match('"refresh_token":"([^"]+)"')
  if status == 200 and next then token = next else failures = failures + 1 end
end
