-- Password sign-ins. args[1]: email, args[2]: password.
function init(args)
  wrk.method = "POST"
  wrk.path = "/token?grant_type=password"
  wrk.headers["Content-Type"] = "application/json"
  wrk.body = '{"email":"' .. args[1] .. '","password":"' .. args[2] .. '"}'
end
