# tfsim fit: input errors and a small fit (no server needed).
expect 0 "fit help" -- "$TFSIM" fit --help
expect_out "config-out" "fit help lists --config-out"
expect 2 "fit without a file" -- "$TFSIM" fit
expect 2 "fit missing file" -- "$TFSIM" fit "$tmp/missing.csv"
expect_err "missing.csv: cannot open" "fit names the missing file"
printf 'operation,concurrency,latency_us,timestamp\na,1,5,1\na,1,-3,1\n' >"$tmp/neg.csv"
expect 2 "fit negative latency" -- "$TFSIM" fit "$tmp/neg.csv"
expect_err "neg.csv:3: latency_us: '-3'" "fit names file:line: column"
printf 'op,c,l,t\n' >"$tmp/hdr.csv"
expect 2 "fit bad header" -- "$TFSIM" fit "$tmp/hdr.csv"
expect_err "hdr.csv:1: expected the header line" "fit names the header"
awk 'BEGIN { print "operation,concurrency,latency_us,timestamp";
             for (i = 1; i <= 300; i++) printf "svc.op,2,%.3f,%d\n", 100 + 50 * ((i * 7919) % 1000) / 1000.0, i }' >"$tmp/ok.csv"
expect 0 "fit uniform-ish sample" -- "$TFSIM" fit "$tmp/ok.csv" --config-out "$tmp/fit.ini"
expect_out "svc.op" "fit lists the operation"
if grep -q '^\[fit.svc\]' "$tmp/fit.ini" && grep -q '^op = ' "$tmp/fit.ini" && grep -q '^op_c2 = ' "$tmp/fit.ini"; then ok; else bad "fit config fragment lacks [fit.svc] op / op_c2"; fi
expect 0 "fit csv format" -- "$TFSIM" fit "$tmp/ok.csv" --chosen --format csv
if [ "$(head -n 1 "$tmp/out")" = "operation,concurrency,n,family,params,mean_ms,ks_d,ks_p,ad,aic,chosen" ] &&
    [ "$(wc -l <"$tmp/out")" -eq 2 ]; then ok; else bad "fit --chosen --format csv: header plus one row"; fi
"$TFSIM" fit "$tmp/ok.csv" >"$tmp/a.txt" 2>/dev/null
"$TFSIM" fit "$tmp/ok.csv" >"$tmp/b.txt" 2>/dev/null
if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then ok; else bad "fit output not deterministic"; fi
expect 2 "fit --alpha out of range" -- "$TFSIM" fit "$tmp/ok.csv" --alpha 2
expect 2 "fit two files" -- "$TFSIM" fit "$tmp/ok.csv" "$tmp/ok.csv"
# The empirical fallback at the most quantiles still writes one config line
# per key that the config loader reads back (a bimodal sample: no family
# passes); more quantiles than fit on a line are refused up front.
awk 'BEGIN { print "operation,concurrency,latency_us,timestamp";
             for (i = 1; i <= 4000; i++) printf "svc.two,1,%.3f,%d\n", (i % 2 ? 100 : 5000) + ((i * 7919) % 1000) / 10.0, i }' >"$tmp/bimodal.csv"
expect 0 "fit --quantiles 200 (empirical)" -- "$TFSIM" fit "$tmp/bimodal.csv" --quantiles 200 --config-out "$tmp/emp.ini"
if grep -q '^two = empirical(' "$tmp/emp.ini"; then ok; else bad "fit --quantiles 200: empirical spec written"; fi
printf 'include = %s\n' "$tmp/emp.ini" >"$tmp/emp_run.ini"
grep -v '^include' configs/queueing/mm1.ini >>"$tmp/emp_run.ini"
expect 0 "the empirical fragment loads" -- "$TFSIM" run "$tmp/emp_run.ini" --reps 2 --set queueing.customers=1000
# a distribution key names a fitted one as fit.SECTION.KEY (here the
# bimodal service, mean about 2.6 ms: at 0.9 arrivals/s the server is idle,
# so the mean response time is the service mean)
expect 0 "run with service = fit.svc.two" -- "$TFSIM" run "$tmp/emp_run.ini" --reps 2 \
    --set queueing.customers=2000 --set station.server.service=fit.svc.two --format csv
awk -F, '$1 == "station" && $2 == "server" { found = 1; if ($6 < 0.002 || $6 > 0.0032) bad = 1 }
         END { exit bad || !found }' "$tmp/out" && ok || { bad "fit.svc.two: mean response about 2.6 ms"; head -5 "$tmp/out" | sed 's/^/    /'; }
expect 2 "run with a missing fitted distribution" -- "$TFSIM" run "$tmp/emp_run.ini" \
    --set station.server.service=fit.svc.none
expect_err "fit.svc.none': no such fitted distribution" "missing fit.SECTION.KEY: named"
expect 2 "fit --quantiles 1000" -- "$TFSIM" fit "$tmp/bimodal.csv" --quantiles 1000
expect_err "--quantiles" "fit --quantiles 1000: names the option"
# Config lines for people: every number of a spec with at most 6
# significant digits (issue #16 item 6)
if grep -v '^#' "$tmp/fit.ini" | grep '=' | grep -Eq '[0-9]{7,}|\.[0-9]*[1-9][0-9]{6,}'; then
    bad "fit config has a number with more than 6 significant digits"; grep -v '^#' "$tmp/fit.ini" | head -3
else
    ok
fi
# A `tfsim probe http` measurement (header latency_ms,...) is fitted by
# simulation: the load generator's and the stand-in server's loop costs.
# tests/data/probe_http_small.csv: httpx 0.28.1/httpcore 1.0.9 at 0 and 2 ms,
# concurrency 1 and 5 (a loaded machine: the throughputs are low).
expect 0 "fit a probe http measurement" -- "$TFSIM" fit tests/data/probe_http_small.csv \
    --fit-latency 2 --reps 1 --iter 20 --format csv --config-out "$tmp/http.ini"
if grep -q '^parameter,value' "$tmp/out" && grep -q '^client.pool_poll_cpu,' "$tmp/out" &&
    [ "$(grep -c ',no,' "$tmp/out")" -eq 8 ] && [ "$(grep -c ',yes,' "$tmp/out")" -eq 8 ]; then ok
else bad "fit http: parameters, 8 fitted and 8 held-out rows"; head -5 "$tmp/out" | sed 's/^/    /'; fi
expect_err "held-out points: client CPU per request MAPE" "fit http: held-out MAPE reported"
if grep -q '^\[client\]' "$tmp/http.ini" && grep -q '^pool_idle_cpu = [0-9.e-]*$' "$tmp/http.ini"; then ok
else bad "fit http --config-out: a [client] fragment"; fi
printf 'include = %s\n[run]\nreplications = 1\n[client]\nconcurrency = 2\ntotal = 50\n' "$tmp/http.ini" >"$tmp/http_run.ini"
# --fit may interleave sections (client, server, client): the fragment still
# gives each section once, so that `fit --config` takes it back
expect 0 "fit http with interleaved sections" -- "$TFSIM" fit tests/data/probe_http_small.csv \
    --fit client.cpu,server.cpu_request,client.pool_poll_cpu --reps 1 --iter 3 \
    --config-out "$tmp/mixed.ini"
if [ "$(grep -c '^\[client\]' "$tmp/mixed.ini")" -eq 1 ] && grep -q '^pool_poll_cpu = ' "$tmp/mixed.ini"; then ok
else bad "fit http --config-out: [client] given once, with every client key"; cat "$tmp/mixed.ini"; fi
expect 0 "the interleaved fragment loads back" -- "$TFSIM" fit tests/data/probe_http_small.csv \
    --config "$tmp/mixed.ini" --reps 1 --iter 0
expect 0 "the fitted client fragment loads in a scenario" -- "$TFSIM" run "$tmp/http_run.ini"
"$TFSIM" fit tests/data/probe_http_small.csv --reps 1 --iter 3 >"$tmp/a.txt" 2>/dev/null
"$TFSIM" fit tests/data/probe_http_small.csv --reps 1 --iter 3 >"$tmp/b.txt" 2>/dev/null
if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then ok; else bad "fit http output not deterministic"; fi
# tests/data/probe_http_debian12.csv: Debian 12's httpx 0.23.3/httpcore 0.16.3
# on this kind of machine, quiet, 0/2/10 ms, concurrency 1-100.  The shipped
# client_debian12.ini (httpcore 0.16's pool, its costs fitted on this and two
# more runs) reproduces its throughputs within 12% MAPE (8.6% when written;
# fixed seed, so the bound cannot flake); httpcore 1.0's pool on the same
# costs cannot (its CPU per request grows with C: 59% when written).
mape_of() { sed -n 's/.*fitted points: .* throughput MAPE \([0-9.]*\)%.*/\1/p' "$tmp/err"; }
# mape_below MAX LABEL: the last fit's throughput MAPE is under MAX percent
mape_below() {
    m=$(mape_of)
    if [ -n "$m" ] && awk -v m="$m" -v x="$1" 'BEGIN { exit !(m < x) }'; then ok
    else bad "$2: probe throughput MAPE '$m', want < $1%"; fi
}
expect 0 "the Debian 12 client against its probe" -- "$TFSIM" fit tests/data/probe_http_debian12.csv \
    --config configs/tigerfans/client_debian12.ini --set server.cpu_request=275us --iter 0 --reps 2
mape_below 12 "client_debian12.ini"
# held out: the same client at backend latencies the config never saw, 100
# and 300 ms (TigerFans' own under load), concurrency 20-100, every
# connection open (tests/data/probe_http_debian12_long.csv): within 10%
# MAPE (6.9% when written)
expect 0 "the Debian 12 client at 100 and 300 ms" -- "$TFSIM" fit tests/data/probe_http_debian12_long.csv \
    --config configs/tigerfans/client_debian12.ini --set server.cpu_request=275us --iter 0 --reps 2
mape_below 10 "client_debian12.ini at 100-300 ms"
# the pool's state, measured (tests/data/probe_http_pool.csv: the same
# latencies with the probe's pool columns) and simulated by the same config:
# 2 passes per request (a start and a response close) in both; the open
# connections within 3% at every point; the idle ones in the waves
# (webhook, commit) fewer in the model (0.50-0.55 of the connections
# against 0.65-0.73 measured, docs/load-generator.md), so within 45% there
expect 0 "the Debian 12 client's pool at 100 and 300 ms" -- "$TFSIM" fit tests/data/probe_http_pool.csv \
    --config configs/tigerfans/client_debian12.ini --set server.cpu_request=275us --iter 0 --reps 2 \
    --format csv
sed -n '/^latency_ms,/,$p' "$tmp/out" >"$tmp/pool.csv"
[ "$(head -1 "$tmp/pool.csv" | cut -d, -f14-19)" = "pool_passes,sim_pool_passes,pool_conns,sim_pool_conns,pool_idle,sim_pool_idle" ] \
    && ok || bad "fit http: pool columns: $(head -1 "$tmp/pool.csv")"
awk -F, 'NR > 1 { n++; d = $17 / $16 - 1; if (d < -0.03 || d > 0.03 || $14 != 2 || $15 != 2) bad++;
                  if ($3 == "webhook" || $3 == "commit") { r = $19 / $18; if (r < 0.55 || r > 1.1) bad++ } }
         END { exit !(n == 18 && bad == 0) }' "$tmp/pool.csv" \
    && ok || { bad "fit http: simulated pool against the measured one"; cut -d, -f1-3,14-19 "$tmp/pool.csv" | sed 's/^/    /'; }
# TigerFans' pinned httpx 0.28.1 / httpcore 1.0.9 (tests/data/probe_http_pool_up.csv),
# its pool against the embedded client's (httpcore 1.x's pass at every
# start, close and retry): in the waves passes, open and idle connections
# within 15% at every point (11%, 7% and 7% when written); the windows'
# open connections within 10% (their few idle ones at 20-50 and their
# passes differ by up to 22-38%)
expect 0 "the pinned client's pool at 100 and 300 ms" -- "$TFSIM" fit tests/data/probe_http_pool_up.csv \
    --set server.cpu_request=275us --iter 0 --reps 2 --format csv
sed -n '/^latency_ms,/,$p' "$tmp/out" | awk -F, 'function off(s, m) { d = s / m - 1; return d < 0 ? -d : d }
    NR > 1 { n++; if (off($17, $16) > 0.10) bad++
             if ($3 != "reserve" && (off($15, $14) > 0.15 || off($17, $16) > 0.15 || off($19, $18) > 0.15)) bad++ }
    END { exit !(n == 18 && bad == 0) }' \
    && ok || { bad "fit http: the pinned client's simulated pool"; sed -n '/^latency_ms,/,$p' "$tmp/out" | cut -d, -f1-3,14-19 | sed 's/^/    /'; }
# an older probe's file has no pool columns: the measured ones are empty
expect 0 "fit http: a file without pool columns" -- "$TFSIM" fit tests/data/probe_http_small.csv --iter 0 \
    --reps 1 --format csv
sed -n '/^latency_ms,/,$p' "$tmp/out" | sed -n 2p | awk -F, '$14 == "" && $15 > 0 && $16 == "" && $18 == "" { ok = 1 } END { exit !ok }' \
    && ok || bad "fit http: no measured pool in an older file"
# held out the same way, TigerFans' pinned httpx 0.28.1/httpcore 1.0.9 at 100
# and 300 ms (tests/data/probe_http_up_long.csv): the embedded client, whose
# costs were fitted at 0-10 ms, gives the collapse at concurrency 100 (56-95
# requests/s measured) within 15% MAPE (11.0% when written)
expect 0 "the pinned client at 100 and 300 ms" -- "$TFSIM" fit tests/data/probe_http_up_long.csv \
    --set server.cpu_request=275us --iter 0 --reps 2
mape_below 15 "httpcore 1.0.9 at 100-300 ms"
# TigerFans' pinned client at the backend latencies where tb_redis runs
# (0 and 2 ms, concurrency 1-100; tests/data/probe_http_up_low.csv, a slow
# day of the VM), the embedded client not refitted: throughput MAPE under
# 15% (12.1% when written, 27 of 40 points within 15%; the largest misses
# are 0 ms at 20, +40 to +44%, where the same client measured 2 ms faster
# than 0 ms; docs/load-generator.md lists the others), under 10% at 50-100
# (6.7%), and the passes per request within 15% at every concurrency from
# 10 (10.7%)
expect 0 "the pinned client at 0 and 2 ms" -- "$TFSIM" fit tests/data/probe_http_up_low.csv \
    --set server.cpu_request=275us --iter 0 --reps 2 --format csv
mape_below 15 "httpcore 1.0.9 at 0-2 ms"
sed -n '/^latency_ms,/,$p' "$tmp/out" | awk -F, 'function off(s, m) { d = s / m - 1; return d < 0 ? -d : d }
    NR > 1 { n++; if ($2 >= 50) { h++; e += off($6, $5) } if ($2 >= 10 && off($15, $14) > 0.15) bad++ }
    END { exit !(n == 40 && h == 16 && e / h < 0.10 && bad == 0) }' \
    && ok || { bad "fit http: the pinned client at 0-2 ms, 50-100 or passes"; sed -n '/^latency_ms,/,$p' "$tmp/out" | cut -d, -f1-7,14-15 | sed 's/^/    /'; }
# the same client at every backend latency the issue names (0, 0.5, 2 and
# 10 ms, concurrency 1-100; tests/data/probe_http_up_all.csv, 2026-12-05
# night), not refitted: every point at 50-100 within 15% (32 of 32, worst
# 13.1% when written); below 50 the VM's own spread dominates (0 ms at 20
# clients measured 261-400 requests/s in three runs an hour apart), so
# those points are only held to the whole file's MAPE under 20% (15.8%)
expect 0 "the pinned client at 0, 0.5, 2 and 10 ms" -- "$TFSIM" fit tests/data/probe_http_up_all.csv \
    --set server.cpu_request=275us --iter 0 --reps 2 --format csv
mape_below 20 "httpcore 1.0.9 at 0-10 ms"
sed -n '/^latency_ms,/,$p' "$tmp/out" | awk -F, 'function off(s, m) { d = s / m - 1; return d < 0 ? -d : d }
    NR > 1 { n++; if ($2 >= 50) { h++; if (off($6, $5) > 0.15) bad++ } }
    END { exit !(n == 80 && h == 32 && bad == 0) }' \
    && ok || { bad "fit http: the pinned client at 50-100, every latency"; sed -n '/^latency_ms,/,$p' "$tmp/out" | cut -d, -f1-7 | sed 's/^/    /'; }
# the same client's waves at 10-50 clients, 2 and 10 ms, two runs per
# point, measured with the VM steady (tests/data/probe_http_up_waves.csv:
# scripts/vm_speed.py's median 38.9 ms before and 38.0 after): every point
# at 15-50 clients within 12% (24 of 24, worst 9.1% when written); at 10
# the commit at 2 ms is +24%, a miss that recurs on every run
expect 0 "the pinned client's waves at 10-50" -- "$TFSIM" fit tests/data/probe_http_up_waves.csv \
    --set server.cpu_request=275us --iter 0 --reps 2 --format csv
sed -n '/^latency_ms,/,$p' "$tmp/out" | awk -F, 'function off(s, m) { d = s / m - 1; return d < 0 ? -d : d }
    NR > 1 && $2 >= 15 { n++; if (off($6, $5) > 0.12) bad++ }
    END { exit !(n == 24 && bad == 0) }' \
    && ok || { bad "fit http: the pinned client's waves at 15-50"; sed -n '/^latency_ms,/,$p' "$tmp/out" | cut -d, -f1-7 | sed 's/^/    /'; }
# A key that is off (client.cold = 0) starts in the middle of its fit range
# in log units (0.14): from just above its floor (0.01, as before) its effect
# is below the simulation's noise and the fit stays there (0.0078, objective
# 3.238 when written, --set client.cold=0.01); from the middle it goes to
# 0.52 (3.139).  Fixed seed.
expect 0 "fit a key that is off" -- "$TFSIM" fit tests/data/probe_http_up_all_4.csv \
    --set client.cpu=613us --set client.pool_poll_cpu=2.9us --set client.pool_idle_cpu=0.16us \
    --set server.cpu_request=280us --fit client.cold --fit-latency 0,10 --reps 2 --iter 30 --format csv
cold=$(sed -n 's/^client\.cold,//p' "$tmp/out")
if awk -v c="$cold" 'BEGIN { exit !(c > 0.1) }'; then ok
else bad "fit http: client.cold from 0 leaves its floor (got '$cold')"; fi
# the same client on another machine (tests/data/probe_http_up_all_4.csv,
# 2026-12-06 noon: 25-40% less client CPU per request at 10-50 clients than
# the files above), its four keys fitted to all 80 points: 76 within 15%
# when written (74 while the stub awaited the measured await).  One simplex from the embedded values stopped at objective
# 14.5 with 36 within; the restarts (val_min_run) go on from there.
# Release build only: the fit runs 170 iterations (over two minutes under ASan).
case "$TFSIM" in
*/san/*) ;;
*)
# within15 N MIN LABEL [held-out]: the last fit's table (--format csv)
# has N fitted points (held-out: N held-out ones) and MIN of them or more
# within 15% in throughput, as many as its summary on stderr counts
# ("fitted points: ..., K of N throughputs within 15%", or "held-out")
within15() {
    which=${4:-fitted}
    col=yes
    [ "$which" = held-out ] && col=no
    said=$(sed -n "s/.*$which points: .*, \([0-9]*\) of \([0-9]*\) throughputs within 15%.*/\1 \2/p" "$tmp/err")
    sed -n '/^latency_ms,/,$p' "$tmp/out" | awk -F, -v want="$1" -v min="$2" -v said="$said" -v col="$col" \
        'function off(s, m) { d = s / m - 1; return d < 0 ? -d : d }
        NR > 1 && $4 == col { n++; if (off($6, $5) <= 0.15) w++ }
        END { exit !(n == want && w >= min && said == w " " n) }' \
        && ok || { bad "$3 (summary: '$said')"; sed -n '/^latency_ms,/,$p' "$tmp/out" | cut -d, -f1-7 | sed 's/^/    /'; }
}
expect 0 "the pinned client refitted on another machine" -- "$TFSIM" fit tests/data/probe_http_up_all_4.csv \
    --reps 2 --format csv --config-out "$tmp/up4.ini"
within15 80 70 "fit http: another machine's probe, 70 of 80 within 15%"
# ... and that client, never fitted to it, against a stand-in that spends
# 2.5 ms of its loop on each request in series, as TigerFans' server does
# (`probe http --server-cpu-ms 2.5`, tests/data/probe_http_up_serial.csv,
# 0 and 2 ms, 1-100 clients, the same machine).  The fit takes the spin
# from the file (architecture.stub_cpu, before the await) and simulates the
# latency asked (the loop's lateness is the model's own): 39 of 40 within
# 15% when written.  With the measured await as the stub's latency and the
# spin in server.cpu_request (0.7 of it before the await) it was 36 of 40;
# the spin before the await with the measured await, 24 of 40
# (docs/load-generator.md, "The stand-in's await").
expect 0 "the refitted client against a server in series" -- "$TFSIM" fit \
    tests/data/probe_http_up_serial.csv --config "$tmp/up4.ini" --iter 0 --reps 2 --format csv
within15 40 37 "fit http: a server in series, 37 of 40 within 15%"
expect_err "the stand-in spun 2.5 ms per request before its await" "fit http: the file's spin is said"
# With 5 ms of spin (tests/data/probe_http_up_serial_5ms.csv, 50 and 100
# clients) the windows at 100 stay where the real pool is, the client
# holding the throughput (91-93/s): the model put them at twice that with
# the measured await (a server-bound regime, +121 and +69%); 8 of 8 within
# 15% when written.
expect 0 "the refitted client against a 5 ms server in series" -- "$TFSIM" fit \
    tests/data/probe_http_up_serial_5ms.csv --config "$tmp/up4.ini" --iter 0 --reps 2 --format csv
within15 8 7 "fit http: a 5 ms server in series, 7 of 8 within 15%"
sed -n '/^latency_ms,/,$p' "$tmp/out" | awk -F, 'function off(s, m) { d = s / m - 1; return d < 0 ? -d : d }
    $2 == 100 && ($3 == "checkout" || $3 == "reserve") { n++; if (off($6, $5) > 0.15) miss++ }
    END { exit !(n == 2 && miss == 0) }' \
    && ok || bad "fit http: a 5 ms server in series, the windows at 100 within 15%"
# Issue 14's transfer: the four keys fitted at one backend latency (2 ms,
# where tb_redis's backends answer) predict the 60 points of the three
# others (tests/data/probe_http_up_all_5.csv, three repetitions per point,
# their mean the measurement): 54 of 60 within 15% when written (fitted
# at 0 / 0.5 / 2 / 10 ms: 58 / 55 / 54 / 39, docs/load-generator.md,
# "Three repetitions per point").  The fit is deterministic (its seed).
expect 0 "fitted at 2 ms, the other latencies held out" -- "$TFSIM" fit \
    tests/data/probe_http_up_all_5.csv --fit-latency 2 --reps 2 --format csv
within15 60 50 "fit http: fitted at 2 ms, 50 of the 60 held-out points within 15%" held-out
    ;;
esac
expect 0 "httpcore 1.0's pool against the Debian probe" -- "$TFSIM" fit tests/data/probe_http_debian12.csv \
    --config configs/tigerfans/client_debian12.ini --set server.cpu_request=275us --set client.httpcore=1.0 \
    --set client.pool_idle_cpu=116.2ns --iter 0 --reps 2
m=$(mape_of)
if [ -n "$m" ] && awk -v m="$m" 'BEGIN { exit !(m > 25) }'; then ok
else bad "httpcore 1.0 on the Debian probe: throughput MAPE '$m', want > 25%"; fi
sed '4s/,1000,1000,0,/,1000,1000x,0,/' tests/data/probe_http_small.csv >"$tmp/bad_http.csv"
expect 2 "fit http: a bad row" -- "$TFSIM" fit "$tmp/bad_http.csv" --iter 0
expect_err "bad_http.csv:4: ok" "fit http: names file, line and column"
expect 2 "fit http: unknown key" -- "$TFSIM" fit tests/data/probe_http_small.csv --fit client.nope --iter 0
expect 2 "fit http: bad --fit-latency" -- "$TFSIM" fit tests/data/probe_http_small.csv --fit-latency x
expect_err "--fit-latency" "fit http: names the flag"
