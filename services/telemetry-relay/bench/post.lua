-- wrk script: POST the envelope in the file given after "--" to every request.
local request_text

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local body = file:read("*a")
  file:close()
  request_text = wrk.format("POST", nil, { ["Content-Type"] = "text/plain;charset=UTF-8" }, body)
end

function request()
  return request_text
end
