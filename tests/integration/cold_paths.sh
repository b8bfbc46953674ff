# scripts/cold_paths.py against the test servers (what server.cold is
# measured from): its lines and their figures, small counts.  Whether a
# command is colder after a gap is not asserted (a shared machine may hide
# it); the figures are what docs/live-tigerfans.md and docs/redis-io-threads.md quote, measured by hand.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3 # Debian's, with python3-redis and python3-asyncpg
expect 0 "cold_paths redis" -- $PY scripts/cold_paths.py redis "$TFSIM_REDIS_SOCKET" --gaps 0,2 -n 20
awk '/^sleep gap (0|2) ms: save cpu [0-9]+ wall [0-9]+  get cpu [0-9]+ wall [0-9]+  setnx cpu [0-9]+ wall [0-9]+  setnx2 cpu [0-9]+ wall [0-9]+  remove cpu [0-9]+ wall [0-9]+ \(us, medians of 20\)$/ { n++ }
     END { exit n != 2 }' "$tmp/out" && ok || { bad "cold_paths redis: one line per gap, five commands each"; sed 's/^/    /' "$tmp/out"; }
expect 0 "cold_paths redis --busy" -- $PY scripts/cold_paths.py redis "$TFSIM_REDIS_SOCKET" --gaps 1 -n 10 --busy
expect_out "^busy gap 1 ms: save cpu [0-9]" "cold_paths redis --busy: other work in the gaps"
expect 0 "cold_paths redis-load" -- $PY scripts/cold_paths.py redis-load "$TFSIM_REDIS_SOCKET" --clients 1,4 -n 20 --gap 1
awk '/^clients (1|4) gap 1 ms: cpu per command [0-9.]+ us, [0-9]+ commands\/s$/ && $7 > 0 { n++ } END { exit n != 2 }' "$tmp/out" &&
    ok || { bad "cold_paths redis-load: a line per client count"; sed 's/^/    /' "$tmp/out"; }
expect 0 "cold_paths pg" -- $PY scripts/cold_paths.py pg "$TFSIM_PG_HOST" "$TFSIM_PG_PORT" --gaps 0,2 -n 20
awk '/^gap (0|2) ms: backend cpu [0-9]+ us, client cpu [0-9]+ us, wall [0-9]+ us \(medians of 20\)$/ && $5 > 0 { n++ }
     END { exit n != 2 }' "$tmp/out" && ok || { bad "cold_paths pg: backend and client CPU per gap"; sed 's/^/    /' "$tmp/out"; }
expect 2 "cold_paths redis: no server" -- $PY scripts/cold_paths.py redis "$tmp/no.sock" -n 1
expect_err "redis at .*no.sock" "cold_paths names the socket it could not reach"
expect 2 "cold_paths: bad gaps" -- $PY scripts/cold_paths.py redis "$TFSIM_REDIS_SOCKET" --gaps 1,x
expect_err "is not a list of numbers" "cold_paths: bad gaps message"
# redis-turns: the loop turns of redis-py's steps (what redis.pool_turns and
# redis.send_turns are measured from).  Exact where no I/O is waited for:
# the pool's connection check is 2 turns (a read under timeout(0), cancelled
# by a call_soon callback); the send with socket_timeout is 3 turns on
# Python 3.11 and earlier (asyncio.wait_for's task) and 0 from 3.12 (and 0
# without a timeout).  The read and the whole command depend on when the
# reply comes in (by hand, quiet: command 4 without the timeout, 5 with it
# on 3.11; while the machine was busy 4 and 6): only that the timeout never
# saves a turn is asserted.
for parser in hiredis python; do
    expect 0 "cold_paths redis-turns ($parser)" -- $PY scripts/cold_paths.py redis-turns "$TFSIM_REDIS_SOCKET" -n 15 --parser $parser
    awk -v old="$($PY -c 'import sys; print(int(sys.version_info < (3, 12)))')" '
        /^socket_timeout None: get_connection 2 send 0 read [0-9]+ command [0-9]+ \(loop turns, medians of 15; python .*, redis-py .*, parser / { n0 = $10 }
        /^socket_timeout 2.0: get_connection 2 send [03] read [0-9]+ command [0-9]+ \(loop turns/ { s2 = $6; n2 = $10 }
        END { exit !(n0 > 0 && n2 != "" && s2 == (old ? 3 : 0) && n2 >= n0) }' "$tmp/out" &&
        ok || { bad "cold_paths redis-turns ($parser): check 2 turns, send 3 (3.11) or 0, the timeout no fewer turns"; sed 's/^/    /' "$tmp/out"; }
done
expect 2 "cold_paths redis-turns: no server" -- $PY scripts/cold_paths.py redis-turns "$tmp/no.sock" -n 1
expect_err "redis at .*no.sock" "cold_paths redis-turns names the socket it could not reach"
# pg-turns: on the same busy loop asyncio.sleep(0) is exactly one turn and
# an asyncpg round trip at least two (the poll, the protocol's callback,
# the task's wake-up: 3 by hand); what server.io_turns is measured from
expect 0 "cold_paths pg-turns" -- $PY scripts/cold_paths.py pg-turns "$TFSIM_PG_HOST" "$TFSIM_PG_PORT" -n 15
awk '/^sleep\(0\) 1 fetchval [0-9]+ update [0-9]+ \(loop turns, medians of 15; python .*, asyncpg .*\)$/ && $4 >= 2 && $6 >= 2 { n++ }
     END { exit n != 1 }' "$tmp/out" && ok || { bad "cold_paths pg-turns: sleep(0) 1 turn, a round trip 2 or more"; sed 's/^/    /' "$tmp/out"; }
expect 2 "cold_paths pg-turns: no server" -- $PY scripts/cold_paths.py pg-turns 127.0.0.1 1 -n 1
expect_err "postgres at 127.0.0.1:1" "cold_paths pg-turns names the server it could not reach"
