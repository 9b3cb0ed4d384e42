-- GET /user with a bearer token. args[1]: the access token.
function init(args)
  wrk.headers["Authorization"] = "Bearer " .. args[1]
end
