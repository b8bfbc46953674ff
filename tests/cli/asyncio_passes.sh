# client.asyncio_passes / server.asyncio_passes: the event loops run
# asyncio's passes (base_events._run_once) instead of one FIFO ready queue.
# In a pass, what a callback schedules (call_soon) waits for the next pass,
# ahead of the I/O that arrived meanwhile, and an arrival's callback wakes
# its task only for the pass after.  So the order changes only where a loop
# has call_soon'd work besides its arrivals:
# - the stand-in server (stub architecture) awaiting a timer: every burst of
#   its loop is an arrival's (the request's, the timer's), and arrivals keep
#   their order: the output is the same, byte for byte;
# - the same awaiting asyncio.sleep(0), a bare yield (call_soon): it changes;
# - the load generator: its pool's turns are call_soon'd: it changes.
stub="--set architecture.accounting=stub --set architecture.payments=stub \
--set server.cpu_request=2.7ms --set client.concurrency=20 --set client.total=400 \
--set run.replications=2 --seed 3"
# shellcheck disable=SC2086
run_to() { f=$1; shift; "$TFSIM" run configs/tigerfans/base.ini $stub "$@" --format csv >"$tmp/$f" 2>/dev/null; }

run_to timer_fifo.csv --set "architecture.stub_latency=const(0.0001)"
run_to timer_pass.csv --set "architecture.stub_latency=const(0.0001)" --set server.asyncio_passes=true
if [ -s "$tmp/timer_fifo.csv" ] && cmp -s "$tmp/timer_fifo.csv" "$tmp/timer_pass.csv"; then ok
else bad "server passes: a stand-in awaiting a timer keeps its order (the same output)"; fi

run_to sleep0_fifo.csv
run_to sleep0_pass.csv --set server.asyncio_passes=true
if [ -s "$tmp/sleep0_pass.csv" ] && ! cmp -s "$tmp/sleep0_fifo.csv" "$tmp/sleep0_pass.csv"; then ok
else bad "server passes: asyncio.sleep(0) is a call_soon (the output changes)"; fi

run_to client_pass.csv --set client.asyncio_passes=true
run_to client_pass2.csv --set client.asyncio_passes=true
if [ -s "$tmp/client_pass.csv" ] && ! cmp -s "$tmp/sleep0_fifo.csv" "$tmp/client_pass.csv"; then ok
else bad "client passes: the pool's turns are call_soon'd (the output changes)"; fi
if cmp -s "$tmp/client_pass.csv" "$tmp/client_pass2.csv"; then ok
else bad "client passes: same seed, same bytes"; fi

# both ends at once, through a TigerFans architecture: it runs, and every
# phase ends with its throughput (no request lost between the queues: a
# phase ends when all its requests are answered)
expect 0 "pg_pg with both loops in passes" -- "$TFSIM" run configs/tigerfans/pg_pg.ini \
    --set client.asyncio_passes=true --set server.asyncio_passes=true --set server.io_turns=2 \
    --set client.concurrency=50 --set run.replications=1 --format csv
awk -F, '$1 == "phase" && $3 > 0 { n++ } END { exit !(n == 4) }' "$tmp/out" \
    && ok || { bad "pg_pg with both loops in passes: four phases"; head -5 "$tmp/out"; }
