wrk.method = "POST"
wrk.body   = '{"email":"bench@example.com"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["SesacKey"] = "sns-dev-key"
