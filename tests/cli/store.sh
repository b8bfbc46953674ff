# run --db and sweep --db: what is stored, database errors, and a sweep
# killed mid-way then resumed.  (Sourced by tests/cli_test.sh: uses expect,
# expect_err, expect_out, ok, bad, $TFSIM, $tmp.)

sdir="$tmp/store"
mkdir -p "$sdir"
mm1=configs/queueing/mm1.ini
q() { sqlite3 "$1" "$2" 2>&1; }

if ! command -v sqlite3 >/dev/null 2>&1; then
    bad "store: sqlite3 command missing (scripts/install-deps.sh installs it)"
else

# run --db stores the manifest and the CSV-layout table, even for --format text
expect 0 "run --db (csv)" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000 --format csv --db "$sdir/run.db"
cp "$tmp/out" "$sdir/run.csv"
expect_err "stored as run 1 in $sdir/run.db" "run --db says where it stored"
# a writer, and the commands that only read the database (export, report),
# leave no -wal or -shm file next to it: after them the store is one file
no_wal_left() {
    for f in "$1-wal" "$1-shm"; do
        if [ -e "$f" ]; then bad "$2 left $f behind"; else ok; fi
    done
}
no_wal_left "$sdir/run.db" "run --db"
expect 0 "export the stored run" -- "$TFSIM" export "$sdir/run.db" --run 1 --format csv
if cmp -s "$sdir/run.csv" "$tmp/out"; then ok; else bad "run --db: stored table differs from the printed CSV"; fi
no_wal_left "$sdir/run.db" "export"
expect 0 "report of the stored run" -- "$TFSIM" report "$sdir/run.db" -o "$sdir/run.html"
no_wal_left "$sdir/run.db" "report"
expect 0 "run --db (text)" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000 --db "$sdir/run.db"
expect_out "mean_response (theory)" "run --db (text) prints the text layout"
expect 0 "export the text run" -- "$TFSIM" export "$sdir/run.db" --run 2 --format csv
if cmp -s "$sdir/run.csv" "$tmp/out"; then ok; else bad "run --db --format text: stored table is not the CSV layout"; fi
m=$(q "$sdir/run.db" "SELECT command, seed, replications, overrides, length(config_hash), git_rev <> '', cflags LIKE '%-std=c17%', config LIKE '%[model]%type = queueing%' FROM runs WHERE id = 1")
if [ "$m" = "run|1|2|run.replications=2 queueing.customers=5000|16|1|1|1" ]; then ok; else bad "run manifest: got '$m'"; fi
expect 0 "run --db --jobs" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000 --jobs 2 --format csv --db "$sdir/run.db"
h=$(q "$sdir/run.db" "SELECT count(DISTINCT config_hash) || '/' || count(DISTINCT overrides) FROM runs")
if [ "$h" = "1/1" ]; then ok; else bad "--jobs changed the manifest (hashes/overrides: $h)"; fi

# diff --db stores the comparison table as one run
expect 0 "diff --db" -- "$TFSIM" diff $mm1 configs/queueing/md1.ini --reps 2 --set queueing.customers=2000 --format csv --db "$sdir/run.db"
cp "$tmp/out" "$sdir/diff.csv"
expect 0 "export the stored diff" -- "$TFSIM" export "$sdir/run.db" --run 4 --format csv
if cmp -s "$sdir/diff.csv" "$tmp/out"; then ok; else bad "diff --db: stored table differs from the printed one"; fi
m=$(q "$sdir/run.db" "SELECT command, title, replications, config LIKE '%mm1.ini%md1.ini%' FROM runs WHERE id = 4")
if [ "$m" = "diff|$mm1 vs configs/queueing/md1.ini|2|1" ]; then ok; else bad "diff manifest: got '$m'"; fi

# database errors: the store is checked before any work, as sweep does
# (not a database: 2; cannot be created: 1)
printf 'not a database, only text long enough to be read as a header\n' >"$sdir/junk.db"
expect 2 "run --db into a non-database" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000 --format csv --db "$sdir/junk.db"
expect_err "junk.db: .*not a tfsim results database" "run --db non-database message"
if [ -s "$tmp/out" ]; then bad "run --db into a non-database ran"; else ok; fi
expect 1 "run --db into a missing directory" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000 --db "$sdir/no/such/dir.db"
expect_err "no/such/dir.db: open: unable to open" "run --db missing directory message"
expect 2 "sweep --db into a non-database" -- "$TFSIM" sweep $mm1 --vary arrivals.rate=0.5,0.6 --reps 2 --set queueing.customers=2000 --db "$sdir/junk.db"
expect_err "junk.db: .*not a tfsim results database" "sweep --db non-database message"
if [ -s "$tmp/out" ]; then bad "sweep --db into a non-database printed results"; else ok; fi

# a sweep killed mid-way keeps its finished points; the same command resumes
# it, skipping them, and prints what an uninterrupted sweep prints.  Point 0
# is quick and the others take a while, so that the kill lands between.
set -- sweep configs/tigerfans/tb_redis.ini --vary client.total=100,30000,31000,32000,33000 \
    --reps 2 --jobs 1 --format csv
expect 0 "uninterrupted sweep" -- "$TFSIM" "$@" --db "$sdir/full.db"
cp "$tmp/out" "$sdir/full.csv"
if [ "$(q "$sdir/full.db" "SELECT count(*) FROM runs")" = 5 ]; then ok; else bad "uninterrupted sweep: expected 5 runs"; fi
expect 0 "same sweep without --db" -- "$TFSIM" "$@"
if cmp -s "$sdir/full.csv" "$tmp/out"; then ok; else bad "sweep output depends on --db"; fi

"$TFSIM" "$@" --db "$sdir/kill.db" >"$sdir/killed.out" 2>&1 &
pid=$!
n=0
tries=0
while [ "$tries" -lt 1500 ]; do
    n=$(q "$sdir/kill.db" "SELECT count(*) FROM sweep_points" 2>/dev/null)
    case "$n" in [1-9]*) break ;; esac
    sleep 0.01
    tries=$((tries + 1))
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
k=$(q "$sdir/kill.db" "SELECT count(*) FROM sweep_points")
case "$k" in
    1|2|3|4) ok ;;
    *) bad "killed sweep: $k points stored, expected 1 to 4 (killed too early or too late)" ;;
esac
if [ "$(q "$sdir/kill.db" "PRAGMA integrity_check")" = ok ]; then ok; else bad "killed sweep: integrity check failed"; fi
# consistent: every run belongs to a stored point and has all its rows
c=$(q "$sdir/kill.db" "SELECT count(*) FROM runs r WHERE nrows <> 27 OR NOT EXISTS (SELECT 1 FROM sweep_points p WHERE p.run_id = r.id) OR (SELECT count(DISTINCT row) FROM results WHERE run_id = r.id) <> 27")
if [ "$c" = 0 ]; then ok; else bad "killed sweep: $c runs incomplete or without their point"; fi
expect 0 "export the killed sweep" -- "$TFSIM" export "$sdir/kill.db" --list sweeps --format csv
expect_out "^1,.*,client.total,\"100,30000,31000,32000,33000\",5,$k," "killed sweep listed with its stored points"
expect 0 "resume the killed sweep" -- "$TFSIM" "$@" --db "$sdir/kill.db"
expect_err "resuming sweep 1 in $sdir/kill.db: $k of 5 points stored" "resume says what it skips"
if cmp -s "$sdir/full.csv" "$tmp/out"; then ok; else bad "resumed sweep output differs from the uninterrupted one"; diff "$sdir/full.csv" "$tmp/out" | head -5; fi
r=$(q "$sdir/kill.db" "SELECT count(*) || '/' || (SELECT count(*) FROM sweep_points) || '/' || (SELECT count(*) FROM sweeps) FROM runs")
if [ "$r" = "5/5/1" ]; then ok; else bad "resume: runs/points/sweeps = $r, expected 5/5/1 (stored points simulated again?)"; fi
# once complete, the same command with other --jobs and --format only reads
expect 0 "rerun a complete sweep" -- "$TFSIM" "$@" --db "$sdir/kill.db" --jobs 2 --format text
expect_err "5 of 5 points stored" "complete sweep: every point resumed"
if [ "$(q "$sdir/kill.db" "SELECT count(*) FROM runs")" = 5 ]; then ok; else bad "complete sweep rerun stored runs again"; fi
expect 0 "the same sweep in text" -- "$TFSIM" "$@" --format text
cp "$tmp/out" "$sdir/full.txt"
expect 0 "rerun a complete sweep (text)" -- "$TFSIM" "$@" --db "$sdir/kill.db" --format text
if cmp -s "$sdir/full.txt" "$tmp/out"; then ok; else bad "resumed sweep text differs"; fi
# another seed is another sweep
expect 0 "sweep with another seed" -- "$TFSIM" sweep $mm1 --vary arrivals.rate=0.5,0.6 --reps 2 --set queueing.customers=2000 --db "$sdir/kill.db" --seed 7
if [ "$(q "$sdir/kill.db" "SELECT count(*) FROM sweeps")" = 2 ]; then ok; else bad "another sweep was not stored as a new sweep"; fi

# a point that fails is reported, not stored, and tried again on resume
# (a run.max_sim_time that the first point stays within; the second needs
# about 1.1e5 s; no estimate of a queueing network's time refuses it first)
set -- sweep $mm1 --vary queueing.customers=100,100000 --set run.max_sim_time=5000 --set queueing.warmup=0 --reps 2 --format csv
expect 1 "sweep --db with a failing point" -- "$TFSIM" "$@" --db "$sdir/fail.db"
expect_err "queueing.customers=100000: .*run.max_sim_time" "failing point: message"
expect_out "^100," "failing point: the other point is printed"
expect 1 "resume a sweep with a failing point" -- "$TFSIM" "$@" --db "$sdir/fail.db"
expect_err "1 of 2 points stored" "failing point: not stored, run again"

# the report shows what run and sweep store: a TigerFans sweep over the
# concurrency gets its six charts, a standalone run its four bar charts
expect 0 "sweep --db for the report" -- "$TFSIM" sweep configs/tigerfans/tb_redis.ini --vary client.concurrency=1,10,50 --reps 2 --db "$sdir/rep.db"
expect 0 "run --db for the report" -- "$TFSIM" run configs/tigerfans/pg_pg.ini --reps 2 --db "$sdir/rep.db"
expect 0 "report of stored runs and sweeps" -- "$TFSIM" report "$sdir/rep.db" -o "$sdir/rep.html"
for title in "Throughput vs client.concurrency" "Utilisation by component vs client.concurrency" \
    "TigerBeetle batch size vs client.concurrency" "Latency percentiles vs client.concurrency" \
    "CPU cores by component vs client.concurrency" "Operation timings vs client.concurrency" \
    "Throughput by phase" "Utilisation by component<" "CPU cores by component<" "Operation timings<"; do
    if grep -q "$title" "$sdir/rep.html"; then ok; else bad "report of stored results lacks the chart '$title'"; fi
done
n=$(grep -o '<svg' "$sdir/rep.html" | wc -l)
if [ "$n" -eq 10 ]; then ok; else bad "report of stored results: $n SVG charts, expected 10"; fi

# plan --db stores its points as a sweep, and resumes the same way; each
# plan also stores its decisions as one run (command plan)
set -- plan $mm1 --vary arrivals.rate=0.5,0.6,0.7 --target-throughput 0.55 --reps 2 --set queueing.customers=2000 --phase server --format csv
expect 0 "plan --db" -- "$TFSIM" "$@" --db "$sdir/plan.db"
cp "$tmp/out" "$sdir/plan.csv"
expect 0 "plan --db again" -- "$TFSIM" "$@" --db "$sdir/plan.db"
expect_err "3 of 3 points stored" "plan --db resumes"
if cmp -s "$sdir/plan.csv" "$tmp/out" && [ "$(q "$sdir/plan.db" "SELECT count(*) FROM runs")" = 5 ] &&
   [ "$(q "$sdir/plan.db" "SELECT count(*) FROM runs WHERE command = 'plan'")" = 2 ]; then ok; else bad "plan --db resume"; fi
expect 0 "export the stored plan" -- "$TFSIM" export "$sdir/plan.db" --run 5 --format csv
expect_out "^arrivals.rate,throughput,throughput_ci,p99,p99_ci,replications,decision,meets,bottleneck,target_throughput,margin_pct,p99_limit,phase$" "stored plan columns"
expect_out "^0.6,.*,meets,yes,server,0.55,0,,server$" "stored plan decision"
if cmp -s "$sdir/plan.csv" "$tmp/out"; then ok; else bad "plan --db: stored table differs from the printed CSV"; fi
expect 0 "sweep over the plan's points" -- "$TFSIM" sweep $mm1 --vary arrivals.rate=0.5,0.6,0.7 --reps 2 --set queueing.customers=2000 --db "$sdir/plan.db" --jobs 2
expect_err "3 of 3 points stored" "a sweep reads the points a plan stored"

fi
