# Robustness, second round (issue 17) and the messages of issue 16 item 7:
# no crash, no leak, no silent loss.  Each case is one that used to crash,
# leak a password, lose output with exit 0, leave a partial file, run for
# minutes, accept nonsense or give an inconsistent status.
# (Sourced by tests/cli_test.sh: uses expect, expect_err, expect_out, $tmp.)

r=$tmp/robust
mkdir -p "$r"
HDR=operation,concurrency,latency_us,timestamp

# ---- 1. fit --config-out with a huge latency (SIGABRT in spec_of) ----
{
    echo $HDR
    i=1
    while [ $i -le 50 ]; do echo "redis.paymentsession.save,1,$((100 + i)),$i"; i=$((i + 1)); done
    echo "redis.paymentsession.save,1,1e308,3"
} >"$r/huge.csv"
expect 2 "fit of a 1e308 us latency" -- "$TFSIM" fit "$r/huge.csv" --config-out "$r/huge.ini"
expect_err "huge.csv:52: latency_us: '1e308' is not a latency in microseconds" "1e308 latency names file:line"
if [ -e "$r/huge.ini" ]; then bad "fit that failed left $r/huge.ini"; else ok; fi
sed 's/1e308/1e170/' "$r/huge.csv" >"$r/huge2.csv"
expect 2 "fit of a 1e170 us latency" -- "$TFSIM" fit "$r/huge2.csv" --config-out "$r/huge.ini"
# the largest accepted latency fits and its fragment loads
sed 's/1e308/3.6e9/' "$r/huge.csv" >"$r/big.csv"
expect 0 "fit of a one-hour latency" -- "$TFSIM" fit "$r/big.csv" --config-out "$r/big.ini"
printf 'include = big.ini\n[redis]\nservice = fit.redis.paymentsession.save\n[client]\ntotal = 20\n' >"$r/use.ini"
expect 0 "the fragment of a one-hour latency is usable" -- "$TFSIM" run "$r/use.ini" --reps 1 --set run.max_sim_time=1e9
# an existing fragment stays as it was when the fit fails
echo "# old" >"$r/keep.ini"
expect 2 "failed fit keeps the old fragment" -- "$TFSIM" fit "$r/huge.csv" --config-out "$r/keep.ini"
if [ "$(cat "$r/keep.ini")" = "# old" ]; then ok; else bad "failed fit changed keep.ini"; fi

# ---- 2. fit: groups bounded, found by hash ----
awk -v n=100001 'BEGIN { print "operation,concurrency,latency_us,timestamp";
    for (i = 0; i < 30; i++) print "big,1," 100 + i ",1";
    for (i = 0; i < n; i++) print "op" i ",1,100,1" }' >"$r/groups.csv"
expect 2 "fit of more than 100000 groups" -- "$TFSIM" fit "$r/groups.csv"
expect_err "groups.csv:100031: more than 100000 (operation, concurrency) groups" "group limit names the line"

# ---- 3. passwords in libpq's parse errors ----
for c in "probe postgres --conninfo" "live configs/live/pg_redis.ini --pg-conninfo" \
         "compare configs/live/pg_redis.ini --vary client.concurrency=1 --pg-conninfo"; do
    # shellcheck disable=SC2086
    expect_code_in "1 2" "$c: malformed URI" -- "$TFSIM" $c 'postgresql://u:s3cretpw@[bad'
    if grep -q s3cretpw "$tmp/err" "$tmp/out"; then bad "$c: the password is printed"; else ok; fi
    expect_err "postgresql://u:\*\*\*@\[bad" "$c: the URI is shown masked"
done

# ---- 4. output lost with exit 0 ----
if [ -w /dev/full ]; then
    for c in "run configs/queueing/mm1.ini --reps 2 --format csv" "fit $r/big.csv" \
             "diff configs/queueing/mm1.ini configs/queueing/md1.ini --reps 2" \
             "plan configs/tigerfans/tb_redis.ini --vary server.workers=1..2 --target-throughput 100 --phase reserve --reps 1 --set client.total=100" \
             "config" "amdahl configs/analysis/seed.ini"; do
        # shellcheck disable=SC2086
        "$TFSIM" $c >/dev/full 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 1 ]; then ok; else bad "$c > /dev/full: exit $rc, expected 1"; fi
        expect_err "tfsim [a-z]*: cannot write standard output: " "$c > /dev/full: message"
    done
    expect 1 "--manifest on a full disk" -- "$TFSIM" run configs/queueing/mm1.ini --reps 2 --manifest /dev/full
    expect_err "/dev/full: write failed: No space left on device" "manifest write error message"
    expect 1 "fit --config-out on a full disk" -- "$TFSIM" fit "$r/big.csv" --config-out /dev/full
    expect_err "/dev/full: write failed" "config-out write error message"
fi

# ---- 5. partial files: temporary file and rename; probe --out untouched ----
expect 0 "manifest through a temporary file" -- "$TFSIM" run configs/queueing/mm1.ini --reps 2 --manifest "$r/m.json"
if [ -n "$(find "$r" -name '*.tmp-*')" ]; then bad "a temporary file was left: $(find "$r" -name '*.tmp-*')"; else ok; fi
expect_code_in "0" "manifest is JSON" -- grep -q '"config_hash"' "$r/m.json"
printf '%s\nold.op,1,5.000,1.000000\n' $HDR >"$r/samples.csv"
cp "$r/samples.csv" "$r/samples.orig"
expect 1 "probe whose server never answers" -- "$TFSIM" probe redis --socket "$r/no.sock" --count 10 --out "$r/samples.csv"
if cmp -s "$r/samples.csv" "$r/samples.orig"; then ok; else bad "probe --out truncated an existing samples file"; fi

# ---- 7. nonsense accepted ----
printf '[run]\nseed = 1\nreplications = 2\nseed = 2\n' >"$r/dupkey.ini"
expect 2 "a key set twice in one file" -- "$TFSIM" run "$r/dupkey.ini"
expect_err "dupkey.ini:4: run.seed: set twice in one file (first at .*dupkey.ini:2)" "duplicate key names both lines"
printf '[run]\nseed = 1\n[client]\ntotal = 20\n[run]\nreplications = 2\n' >"$r/dupsec.ini"
expect 2 "a section opened twice in one file" -- "$TFSIM" run "$r/dupsec.ini"
expect_err "dupsec.ini:5: \[run\] repeated (first at .*dupsec.ini:1)" "repeated section names both lines"
# overriding an included file's keys, and --set, still work
printf 'include = %s/configs/tigerfans/tb_redis.ini\n[server]\nworkers = 2\n[client]\ntotal = 20\n' "$(pwd)" >"$r/variant.ini"
expect 0 "an including file overrides the included keys" -- "$TFSIM" run "$r/variant.ini" --reps 1 --set server.workers=3 --set server.workers=4
# every shipped scenario loads (the refusal of its size comes after every
# check of the config)
for f in configs/queueing/*.ini configs/tigerfans/*.ini configs/tigerfans/whatif/*.ini configs/live/*.ini; do
    expect 2 "shipped config $f loads" -- "$TFSIM" run "$f" --set run.max_events=1
    expect_err "a replication needs at least" "shipped config $f: only its size is refused"
done
expect 0 "shipped amdahl input loads" -- "$TFSIM" amdahl configs/analysis/seed.ini
expect 2 "hexadecimal integer" -- "$TFSIM" run --set run.replications=0x10
expect_err "run.replications: '0x10': not an integer" "hex message"
printf '[run]\nreplications = 0x10\n' >"$r/hex.ini"
expect 2 "hexadecimal integer in a file" -- "$TFSIM" run "$r/hex.ini"
expect_err "hex.ini:2: run.replications: '0x10': not an integer" "hex names file:line"
expect 2 "diff of a tigerfans and a queueing config" -- "$TFSIM" diff configs/tigerfans/tb_redis.ini configs/queueing/mm1.ini
expect_err "tb_redis.ini is a tigerfans scenario and configs/queueing/mm1.ini a queueing one" "diff of two models message"
expect 2 "a phase given twice" -- "$TFSIM" run --set client.phases=checkout,checkout
expect_err "client.phases: 'checkout' given twice" "phase twice message"
printf '[my section]\nx = 1\n' >"$r/space.ini"
expect 2 "a section name with a space" -- "$TFSIM" run "$r/space.ini"
expect_err "space.ini:1: \[my section\]: section names use letters, digits" "section name message"
printf '[model]\nname = caf\351\n' >"$r/latin1.ini"
expect 2 "invalid UTF-8 in a value" -- "$TFSIM" run "$r/latin1.ini"
expect_err "latin1.ini:2: invalid UTF-8" "UTF-8 message"
expect 2 "invalid UTF-8 in --set" -- "$TFSIM" run --set "model.name=caf$(printf '\351')"

# ---- 8. consistency: exit codes and file:line ----
printf 'not a database, only text long enough to be read as a header\n' >"$r/junk.db"
for c in "run configs/queueing/mm1.ini --reps 2" \
         "diff configs/queueing/mm1.ini configs/queueing/md1.ini --reps 2" \
         "sweep configs/queueing/mm1.ini --vary arrivals.rate=0.5 --reps 2" \
         "plan configs/queueing/mm1.ini --vary arrivals.rate=0.5 --target-throughput 0.1 --reps 2" \
         "predict --tigerbench tests/data/calibration.csv --baseline pg_pg --target tb_redis --reps 2"; do
    # shellcheck disable=SC2086
    expect 2 "$c --db junk" -- "$TFSIM" $c --db "$r/junk.db"
    expect_err "junk.db: .*not a tfsim results database" "$c --db junk: message"
done
i=0
{ printf '[model]\ntype = queueing\n'; while [ $i -le 32 ]; do printf '[station.s%d]\nservice = exp(mean=1)\n' $i; i=$((i + 1)); done; } >"$r/stations.ini"
expect 2 "33 stations" -- "$TFSIM" run "$r/stations.ini"
expect_err "stations.ini:68: \[station.s32\]: more than 32 \[station.\*\] sections" "33 stations names file:line"
printf '[model]\ntype = queueing\n' >"$r/nostation.ini"
expect 2 "no station" -- "$TFSIM" run "$r/nostation.ini"
expect_err "nostation.ini: no \[station.NAME\] section" "no station names the file"
printf '[model]\ntype = queueing\n[station.s]\nservers = 1\n' >"$r/noservice.ini"
expect 2 "required key missing" -- "$TFSIM" run "$r/noservice.ini"
expect_err "noservice.ini: station.s.service: required key is missing" "required key names the file"
printf '[run]\nseed = 1\ninclude = /dev/zero\n' >"$r/zero.ini"
expect 2 "include of /dev/zero" -- "$TFSIM" run "$r/zero.ini"
expect_err "zero.ini:3: include: /dev/zero:1: NUL byte" "include of /dev/zero names the include"
printf '[postgres]\ngate = 10\npool_size = 20\npool_overflow = 0\n' >"$r/gbase.ini"
printf 'include = gbase.ini\n[postgres]\npool_size = 3\n' >"$r/gw.ini"
expect 2 "gate/pool conflict" -- "$TFSIM" run "$r/gw.ini"
expect_err "gw.ini:3: postgres.pool_size: postgres.gate = 10 permits (.*gbase.ini:2)" "conflict blames the line that set pool_size"

# ---- issue 16 item 7: messages ----
C=configs/tigerfans/tb_redis.ini
expect 2 "--vary value out of range" -- "$TFSIM" sweep $C --vary client.concurrency=0,1
expect_err "tfsim sweep: --vary: client.concurrency: 0 is out of range 1..1000000" "--vary error names --vary"
expect 2 "--reps 0" -- "$TFSIM" run $C --reps 0
expect_err "tfsim run: --reps: run.replications: 0 is out of range 1..100000" "--reps error names --reps"
expect 2 "--jobs 100" -- "$TFSIM" run $C --jobs 100
expect_err "tfsim run: --jobs: expected an integer in 1..64, got '100'" "--jobs range reads 1..64"
expect 2 "--vary KEY 1,2" -- "$TFSIM" sweep $C --vary client.concurrency 1,2
expect_err "did you mean --vary client.concurrency=1,2?" "--vary with a space gets a hint"
expect 2 "misspelt command" -- "$TFSIM" swep
expect_err "unknown command 'swep' (did you mean sweep?" "did you mean a command"

# ---- a new user's audit (2026-12-05): each case crashed, lost a key or a
# file without a word, or named the wrong line ----
C=configs/tigerfans/tb_redis.ini
expect 2 "--vary range wider than a long" -- "$TFSIM" sweep $C --vary client.concurrency=-9000000000000000000..9000000000000000000:1000 --reps 2
expect_err "more than 10000 values" "a wide range is refused, not an overflow"
expect 2 "--vary full long range" -- "$TFSIM" plan $C --vary server.workers=-9223372036854775807..9223372036854775807 --target-throughput 10 --reps 2
expect_err "more than 10000 values" "the whole long range is refused"
expect 2 "distribution list with commas" -- "$TFSIM" sweep $C --vary 'redis.service=uniform(1ms, 3ms),bogus(2ms)' --reps 2 --set client.total=50
expect_err "bogus(2ms)" "a distribution's own commas stay in its value (the second value is the bad one)"
expect 0 "distributions in a list" -- "$TFSIM" sweep $C --vary 'redis.service=uniform(1ms, 3ms),const(2ms)' --reps 2 --set client.total=50 --format csv
expect_out "uniform(1ms, 3ms)" "the first value is whole"
expect 2 "sweep --manifest" -- "$TFSIM" sweep $C --vary client.concurrency=1,2 --reps 2 --manifest "$r/m.json"
expect_err "unknown option --manifest" "only run writes a manifest"
expect 2 "run --manifest -" -- "$TFSIM" run $C --reps 2 --manifest -
expect_err "standard output holds the results" "--manifest - is refused"
printf '[client]\nconcurrency = 5\ninclude = %s/configs/tigerfans/tb_redis.ini\n' "$PWD" >"$r/inc_after.ini"
expect 2 "include after a key it sets" -- "$TFSIM" run "$r/inc_after.ini" --reps 2
expect_err "inc_after.ini:2: client.concurrency: set at line 2, then again by the include at line 3" "the lost key is named"
printf 'include = %s/configs/tigerfans/tb_redis.ini\n[client]\nconcurrency = 5\n' "$PWD" >"$r/inc_first.ini"
expect 0 "include first, then a key" -- "$TFSIM" run "$r/inc_first.ini" --reps 2 --set client.total=100
expect_out "concurrency 5" "the including file's key wins"
expect 1 "a pilot run that hits a limit" -- "$TFSIM" sweep configs/queueing/mm1.ini --vary run.max_pending=16,100000 --reps 2 --set queueing.customers=1000
expect_err "run.max_pending=16: queueing.warmup = auto: its pilot run stopped: more than 16 customers" "the point and the pilot are named"
expect_out "100000" "the other point's row is printed"
expect 2 "calibrate --fit of an integer key" -- "$TFSIM" calibrate --tigerbench tests/data/calibration.csv --arch pg_pg --iter 5 --reps 1 --fit client.concurrency
expect_err "client.concurrency: an integer key" "an integer key is refused before the fit"
head -1 tests/data/calibration.csv >"$r/bad_phase.csv"
sed -n 2,4p tests/data/calibration.csv | sed '2s/,webhook,/,dance,/' >>"$r/bad_phase.csv"
expect 2 "import of an unknown phase" -- "$TFSIM" import "$r/bad_phase.csv" --db "$r/imp.db"
expect_err "bad_phase.csv:3: phase: 'dance' is not a TigerBench phase" "import checks what predict checks"
if [ -e "$r/imp.db" ]; then bad "a refused import left $r/imp.db"; else ok; fi
head -1 tests/data/calibration.csv >"$r/bad_ok.csv"
sed -n 2p tests/data/calibration.csv | awk -F, 'BEGIN { OFS = "," } { $12 = 5000; print }' >>"$r/bad_ok.csv"
expect 2 "ok above total" -- "$TFSIM" import "$r/bad_ok.csv" --db "$r/imp.db"
expect_err "bad_ok.csv:2: ok: 5000 successful requests of 1000" "ok > total is refused"
if [ -w /dev/full ]; then
    expect 1 "run --help to /dev/full" -- sh -c "\"$TFSIM\" run --help >/dev/full"
    expect_err "cannot write standard output" "a subcommand's help checks its output"
fi
expect 2 "unknown option last" -- "$TFSIM" predict --tigerbench tests/data/calibration.csv --refit
expect_err "unknown option --refit" "an unknown last option is unknown, not short of a value"
expect 2 "known option last" -- "$TFSIM" calibrate --tigerbench tests/data/calibration.csv --arch
expect_err "\-\-arch needs a value" "a known last option needs its value"
printf '[client]\nconcurrency = 5\n[bogus]\n' >"$r/empty_sec.ini"
expect 2 "empty unknown section" -- "$TFSIM" run "$r/empty_sec.ini"
expect_err "empty_sec.ini:3: \[bogus\]: unknown section" "an empty unknown section is named at its header"
printf '[client]\nconcurrency = 5\n\n[bogus]\nx = 1\n' >"$r/unk_sec.ini"
expect 2 "unknown section with a key" -- "$TFSIM" run "$r/unk_sec.ini"
expect_err "unk_sec.ini:4: \[bogus\]" "an unknown section is named at its header line"
{ head -1 tests/data/calibration.csv; sed -n 2p tests/data/calibration.csv | sed 's/,checkout,/,"checkout,/'; sed -n 3,400p tests/data/calibration.csv; } >"$r/quote.csv"
expect 2 "an unclosed quote" -- "$TFSIM" predict --tigerbench "$r/quote.csv" --baseline pg_pg --target pg_pg
expect_err "quote.csv:2: field longer than 8192 bytes by line" "an unclosed quote is named where it opened"
expect 2 "closed.customers beyond max_pending" -- "$TFSIM" run configs/queueing/closed.ini --set closed.customers=10000000
expect_err "closed.customers: the stations' servers plus closed.customers" "refused up front as bad input"

# ---- a second audit (2026-12-05, servers): a URI password with '/' or '#'
# unencoded was printed in part (libpq put it in the port and dbname) ----
expect 2 "URI password with a slash" -- "$TFSIM" probe pg --conninfo "postgresql://u:ab/SECRETslash@127.0.0.1:1/db" --count 5
expect_err "a URI whose password libpq cannot read" "the misread URI is named"
if grep -q SECRET "$tmp/err"; then bad "a slash password leaked: $(cat "$tmp/err")"; else ok; fi
expect_code_in "1 2" "URI password with a hash" -- "$TFSIM" probe pg --conninfo "postgresql://u:pa#SECRETb@[::1]x/db" --count 5
if grep -q SECRET "$tmp/err"; then bad "a hash password leaked: $(cat "$tmp/err")"; else ok; fi
expect 1 "compare --params-out to a missing folder, before any live run" -- "$TFSIM" compare configs/live/pg_redis.ini --vary client.concurrency=1 --params-out /nonexistent-dir/p.txt
expect_err "params-out /nonexistent-dir/p.txt: cannot be written" "the unwritable --params-out is named up front"
