# scripts/live_cpu_phases.py: the four phases of a TigerFans checkout run
# against a server, with every process's CPU per request per phase.  Here
# the checkout is a stand-in (bench/load_phases.py with TigerBench's four
# phase functions and its Summary fields; checkout burns about 20 ms of
# CPU in this process, the others none) and the "server" is this shell:
# the rows, their order, the request counts and the load generator's CPU
# (about 20 ms / 100 requests = 0.2 ms per request in checkout) are what
# the script must get right.
mkdir -p "$tmp/app/bench"
cat >"$tmp/app/bench/load_phases.py" <<'PY'
import time
class Summary:
    def __init__(self, total, ok, wall):
        self.total, self.ok, self.errors = total, ok, total - ok
        self.wall_time, self.throughput = wall, ok / wall
def burn(s):
    t = time.process_time()
    while time.process_time() - t < s:
        pass
async def phase_checkout(base, total, conc):
    burn(0.02)
    junk = [[i] for i in range(20000)]  # containers: young-generation collections
    return list(range(total)), Summary(total, total, 0.5)
async def phase_webhook(base, sessions, concurrency, mode, succeed_rate, mock_webhook_url, mock_secret):
    assert mode == "direct" and mock_webhook_url == base + "/payments/webhook"
    import os
    time.sleep(float(os.environ.get("STANDIN_SLEEP", "0")))  # the "server" may stop meanwhile
    return sessions, Summary(len(sessions), len(sessions) - 1, 0.25)
async def phase_accounting_reserve(base, total, conc):
    return list(range(total)), Summary(total, total, 0.5)
async def phase_accounting_commit(base, sessions, conc):
    return sessions, Summary(len(sessions), len(sessions), 0.1)
PY
touch "$tmp/app/bench/__init__.py"
expect 0 "live_cpu_phases with a stand-in checkout" -- python3 scripts/live_cpu_phases.py --app "$tmp/app" \
    --server-pid $$ --arch pg_pg --concurrency 7 --total 100 --csv "$tmp/cpu.csv"
if [ "$(head -1 "$tmp/cpu.csv")" = "arch,concurrency,phase,requests,ok,walltime,throughput,client_ms,server_ms,postgres_ms,redis_ms" ]; then ok; else
    bad "live_cpu_phases: header"; fi
if awk -F, 'NR == 2 && $3 == "checkout" && $4 == 100 && $5 == 100 && $7 == 200 { c++ }
            NR == 3 && $3 == "webhook" && $5 == 99 && $7 == 396 { c++ }
            NR == 4 && $3 == "reserve" { c++ } NR == 5 && $3 == "commit" && $7 == 1000 { c++ }
            NR > 1 && ($1 != "pg_pg" || $2 != 7) { bad = 1 }
            END { exit bad || c != 4 || NR != 5 }' "$tmp/cpu.csv"; then ok; else
    bad "live_cpu_phases: four rows in phase order with the summaries"; sed 's/^/    /' "$tmp/cpu.csv"; fi
# checkout's CPU: 20 ms over 100 requests (the clock ticks are 10 ms: 0.1-0.4)
if awk -F, 'NR == 2 { exit !($8 >= 0.1 && $8 <= 0.4) }' "$tmp/cpu.csv"; then ok; else
    bad "live_cpu_phases: the load generator's CPU per request in checkout"; sed -n 2p "$tmp/cpu.csv"; fi
# a second run appends without a second header
expect 0 "live_cpu_phases appends" -- python3 scripts/live_cpu_phases.py --app "$tmp/app" \
    --server-pid $$ --arch pg_redis --concurrency 1 --total 10 --csv "$tmp/cpu.csv"
if [ "$(grep -c '^arch,' "$tmp/cpu.csv")" -eq 1 ] && [ "$(grep -c '^pg_redis,1,' "$tmp/cpu.csv")" -eq 4 ]; then ok; else
    bad "live_cpu_phases: appended rows"; fi
# --gc-stats: the load generator's collections per phase (checkout makes
# 20,000 lists: some 28 young collections at 700 allocations each; the
# others next to none); without --server-gc the server's columns are empty
expect 0 "live_cpu_phases --gc-stats" -- python3 scripts/live_cpu_phases.py --app "$tmp/app" \
    --server-pid $$ --arch pg_pg --concurrency 7 --total 100 --csv "$tmp/cpu3.csv" --gc-stats "$tmp/gc.csv"
if [ "$(head -1 "$tmp/gc.csv")" = "arch,concurrency,phase,client_gc_ms,client_collections,server_gc_ms,server_collections" ] &&
    awk -F, 'NR == 2 && $3 == "checkout" && $5 >= 10 && $4 >= 0 && $6 == "" && $7 == "" { c++ }
             NR > 2 && $5 <= 3 && $6 == "" { c++ } END { exit c != 4 || NR != 5 }' "$tmp/gc.csv"; then ok
else bad "live_cpu_phases --gc-stats: checkout's collections, the server's columns empty"; sed 's/^/    /' "$tmp/gc.csv"; fi
# --server-gc: the hook's empty file (no collection yet) reads as none;
# a file that is not the hook's leaves the server's columns empty, said
: >"$tmp/gc_empty.txt"
expect 0 "live_cpu_phases --server-gc, the hook's empty file" -- python3 scripts/live_cpu_phases.py \
    --app "$tmp/app" --server-pid $$ --arch pg_pg --concurrency 2 --total 10 --csv "$tmp/cpu4.csv" \
    --gc-stats "$tmp/gc4.csv" --server-gc "$tmp/gc_empty.txt"
if awk -F, 'NR > 1 && $6 == "0.0000" && $7 == 0 { c++ } END { exit c != 4 }' "$tmp/gc4.csv"; then ok
else bad "live_cpu_phases --server-gc: an empty file is no collection"; sed 's/^/    /' "$tmp/gc4.csv"; fi
echo "not the hook" >"$tmp/gc_bad.txt"
expect 0 "live_cpu_phases --server-gc, a file that is not the hook's" -- python3 scripts/live_cpu_phases.py \
    --app "$tmp/app" --server-pid $$ --arch pg_pg --concurrency 2 --total 10 --csv "$tmp/cpu5.csv" \
    --gc-stats "$tmp/gc5.csv" --server-gc "$tmp/gc_bad.txt"
expect_err "server's GC columns of this phase are left empty" "live_cpu_phases: a bad --server-gc file, said"
if awk -F, 'NR > 1 && $6 == "" && $7 == "" && $5 != "" { c++ } END { exit c != 4 }' "$tmp/gc5.csv" &&
    [ "$(grep -c '^pg_pg,2,' "$tmp/cpu5.csv")" -eq 4 ]; then ok
else bad "live_cpu_phases --server-gc: a bad file empties the server's columns, keeps the rows"; fi
# a server that stops during the run: the phases measured before it stay
# (a "server" that lives 0.5 s, left a zombie or reaped, as the machine's
# init does: gone either way; the webhook stand-in waits 1.5 s)
(sleep 0.5 & echo $! >"$tmp/short.pid")
STANDIN_SLEEP=1.5 expect 1 "live_cpu_phases: the server stops mid-run" -- python3 scripts/live_cpu_phases.py \
    --app "$tmp/app" --server-pid "$(cat "$tmp/short.pid")" --arch pg_pg --concurrency 3 --total 10 \
    --csv "$tmp/cpu6.csv"
expect_err "cannot be read any more .*the phases measured before are in" "live_cpu_phases: a stopped server, said"
if [ "$(grep -c '^pg_pg,3,checkout,' "$tmp/cpu6.csv")" -eq 1 ] && [ "$(wc -l <"$tmp/cpu6.csv")" -eq 2 ]; then ok
else bad "live_cpu_phases: the phase before the server stopped kept"; sed 's/^/    /' "$tmp/cpu6.csv"; fi
# output files: a folder that is not there is bad input, said before any
# phase runs (exit 2); a file that fails while written ends the run with
# its name (exit 1), not as a stopped server
expect 2 "live_cpu_phases: --csv in a missing folder" -- python3 scripts/live_cpu_phases.py \
    --app "$tmp/app" --server-pid $$ --arch pg_pg --concurrency 1 --csv "$tmp/no/such/x.csv"
expect_err "^live_cpu_phases: --csv $tmp/no/such/x.csv: its folder .* is missing" \
    "live_cpu_phases: a missing --csv folder, named"
expect 1 "live_cpu_phases: --gc-stats on a full device" -- python3 scripts/live_cpu_phases.py \
    --app "$tmp/app" --server-pid $$ --arch pg_pg --concurrency 1 --total 10 --csv "$tmp/cpu7.csv" \
    --gc-stats /dev/full
expect_err "^live_cpu_phases: cannot write /dev/full" "live_cpu_phases: a file that cannot be written, named"
if grep -q "cannot be read any more" "$tmp/err"; then bad "live_cpu_phases: a write error read as a stopped server"
else ok; fi
expect 2 "live_cpu_phases: --server-gc alone" -- python3 scripts/live_cpu_phases.py --app "$tmp/app" \
    --server-pid $$ --arch pg_pg --concurrency 1 --csv "$tmp/x.csv" --server-gc "$tmp/none"
expect_err "--server-gc needs --gc-stats" "live_cpu_phases: --server-gc without --gc-stats"
expect 2 "live_cpu_phases: a server that is not running" -- python3 scripts/live_cpu_phases.py --app "$tmp/app" \
    --server-pid 999999999 --arch pg_pg --concurrency 1 --csv "$tmp/x.csv"
expect_err "--server-pid 999999999" "live_cpu_phases names the missing server"
expect 2 "live_cpu_phases: concurrency 0" -- python3 scripts/live_cpu_phases.py --app "$tmp/app" \
    --server-pid $$ --arch pg_pg --concurrency 0 --csv "$tmp/x.csv"
expect_err "must be at least 1" "live_cpu_phases checks --concurrency"
