# tfsim probe: flag errors and the TigerBeetle stub (no server needed).
expect 0 "probe help" -- "$TFSIM" probe --help
expect_out "examples:" "probe help has examples"
expect 2 "probe without a server kind" -- "$TFSIM" probe
expect_err "redis, postgres, tigerbeetle or http" "probe names the kinds"
expect 2 "probe unknown kind" -- "$TFSIM" probe mysql
expect_err "unknown server 'mysql'" "probe names the bad kind"
expect 2 "probe --count 0" -- "$TFSIM" probe redis --count 0
expect_err "\-\-count" "probe names --count"
expect 2 "probe --concurrency 0" -- "$TFSIM" probe redis --concurrency 1,0
expect_err "\-\-concurrency" "probe names --concurrency"
expect 2 "probe --concurrency junk" -- "$TFSIM" probe postgres --concurrency 1,x
expect 2 "probe --timeout junk" -- "$TFSIM" probe redis --timeout soon
expect_err "\-\-timeout: 'soon'" "probe names --timeout"
expect 2 "probe --ops unknown" -- "$TFSIM" probe redis --ops paymentsession.nope --socket /nonexistent
expect_err "unknown operation 'paymentsession.nope'" "probe names the unknown operation"
expect 2 "probe unknown flag" -- "$TFSIM" probe redis --frobnicate
expect_err "unknown option '--frobnicate'" "probe names the unknown flag"
expect 2 "probe redis flag for postgres" -- "$TFSIM" probe postgres --db 3
expect 2 "probe --port out of range" -- "$TFSIM" probe redis --port 70000
expect 2 "probe --conninfo malformed" -- "$TFSIM" probe postgres --conninfo "host"
expect_err "\-\-conninfo" "probe names --conninfo"
expect 1 "probe tigerbeetle without the client" -- "$TFSIM" probe tigerbeetle
expect_err "TB_CLIENT_DIR" "probe tigerbeetle says how to enable it"
expect 1 "probe redis, no server" -- "$TFSIM" probe redis --socket "$tmp/none.sock" --count 1
expect_err "redis at unix:$tmp/none.sock (db 15): cannot connect" "probe names the redis server"
