# tfsim run / sweep: formats, determinism, bad input (sourced by tests/cli_test.sh)
mm1=configs/queueing/mm1.ini

expect 0 "run mm1 csv" -- "$TFSIM" run $mm1 --reps 3 --set queueing.customers=20000 --format csv
expect_out "^scope,name,throughput,throughput_ci,throughput_theory,mean_response,mean_response_ci,mean_response_theory" "mm1 csv header"
expect_out "^station,server," "mm1 csv station row"
cp "$tmp/out" "$tmp/a.csv"
expect 0 "run mm1 again" -- "$TFSIM" run $mm1 --reps 3 --set queueing.customers=20000 --format csv
if cmp -s "$tmp/a.csv" "$tmp/out"; then ok; else bad "same seed: output differs"; fi
expect 0 "run mm1 other seed" -- "$TFSIM" run $mm1 --reps 3 --set queueing.customers=20000 --format csv --seed 99
if cmp -s "$tmp/a.csv" "$tmp/out"; then bad "different seed: identical output"; else ok; fi
expect 0 "run mm1 json" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000 --format json
expect_out '"mean_response_theory": 10' "json theory value"
expect 0 "run mm1 text" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000
expect_out "mean_response (theory)" "text layout"
expect 0 "run with manifest" -- "$TFSIM" run $mm1 --reps 2 --set queueing.customers=5000 --manifest "$tmp/m.json" --format csv
if grep -q '"config_hash"' "$tmp/m.json" && grep -q '"git_revision"' "$tmp/m.json" \
   && grep -q '"overrides": "run.replications=2 queueing.customers=5000"' "$tmp/m.json"; then ok; else bad "manifest content"; head -20 "$tmp/m.json"; fi

for cfg in configs/tigerfans/*.ini configs/tigerfans/whatif/*.ini; do
    expect 0 "shipped config $cfg" -- "$TFSIM" run "$cfg" --reps 2 --set client.total=200 --format csv
done
for cfg in configs/queueing/*.ini; do
    expect 0 "shipped config $cfg" -- "$TFSIM" run "$cfg" --reps 2 --set queueing.customers=5000 --format csv
done

# bad input: exit 2, file:line: key: message
printf '[model]\ntype = queueing\n[station.s]\nservce = exp(mean=1)\n' > "$tmp/typo.ini"
expect 2 "unknown key" -- "$TFSIM" run "$tmp/typo.ini"
expect_err "typo.ini:4: station.s.servce: unknown key (did you mean service?)" "did-you-mean"
printf '[modle]\ntype = queueing\n' > "$tmp/sec.ini"
expect 2 "unknown section" -- "$TFSIM" run "$tmp/sec.ini"
expect_err "sec.ini:1: \[modle\]: unknown section (did you mean \[model\]?)" "section did-you-mean"
printf '[client]\nconcurrency = ten\n' > "$tmp/num.ini"
expect 2 "malformed number" -- "$TFSIM" run "$tmp/num.ini"
expect_err "num.ini:2: client.concurrency: 'ten': not an integer" "number message"
printf '[client]\ncpu = 3 fortnights\n' > "$tmp/unit.ini"
expect 2 "bad unit" -- "$TFSIM" run "$tmp/unit.ini"
expect_err "unit.ini:2: client.cpu" "unit message"
printf '[redis]\nservice = poisson(3)\n' > "$tmp/dist.ini"
expect 2 "bad distribution" -- "$TFSIM" run "$tmp/dist.ini"
expect_err "dist.ini:2: redis.service: bad distribution" "distribution message"
printf '[model]\ntype = queueing\n[arrivals]\nrate = -3\n[station.s]\nservice = exp(mean=1)\n' > "$tmp/neg.ini"
expect 2 "negative rate" -- "$TFSIM" run "$tmp/neg.ini"
expect_err "neg.ini:4: arrivals.rate" "negative rate message"
expect 2 "rho >= 1" -- "$TFSIM" run $mm1 --set arrivals.rate=1.0
expect_err "no steady state" "rho message"
printf '[postgres]\ngate = 25\n' > "$tmp/gate.ini"
expect 2 "gate above pool" -- "$TFSIM" run "$tmp/gate.ini"
expect_err "gate.ini:2: postgres.gate" "gate message"
expect 2 "missing config" -- "$TFSIM" run "$tmp/nope.ini"
expect_err "nope.ini: cannot open" "missing file message"
expect 2 "bad --set" -- "$TFSIM" run $mm1 --set nodot
expect_err "expected SECTION.KEY=VALUE" "--set message"
expect 2 "bad --seed" -- "$TFSIM" run $mm1 --seed -4
expect 2 "unknown option" -- "$TFSIM" run $mm1 --frobnicate
expect 2 "bad format" -- "$TFSIM" run $mm1 --format xml
printf 'include = self.ini\n' > "$tmp/self.ini"
expect 2 "include cycle" -- "$TFSIM" run "$tmp/self.ini"
expect_err "include cycle" "cycle message"

# sweep: one row per point, identical whatever --jobs is
expect 0 "sweep jobs 1" -- "$TFSIM" sweep configs/tigerfans/pg_pg.ini --vary client.concurrency=1,10,50 --reps 3 --jobs 1 --format csv
cp "$tmp/out" "$tmp/s1.csv"
expect 0 "sweep jobs 2" -- "$TFSIM" sweep configs/tigerfans/pg_pg.ini --vary client.concurrency=1,10,50 --reps 3 --jobs 2 --format csv
if cmp -s "$tmp/s1.csv" "$tmp/out"; then ok; else bad "sweep output depends on --jobs"; fi
if [ "$(wc -l < "$tmp/out")" -eq 4 ]; then ok; else bad "sweep: expected header + 3 rows"; fi
expect_out "^client.concurrency,checkout.throughput,checkout.throughput_ci" "sweep header"
expect 0 "sweep range" -- "$TFSIM" sweep $mm1 --vary arrivals.rate=1..1 --set 'station.server.service=exp(mean=0.5)' --reps 2 --set queueing.customers=2000 --format csv
expect 2 "sweep without --vary" -- "$TFSIM" sweep $mm1
expect 2 "sweep bad key" -- "$TFSIM" sweep $mm1 --vary arrivals.rat=1,2
expect_err "did you mean rate" "sweep key did-you-mean"
expect 2 "sweep bad value" -- "$TFSIM" sweep $mm1 --vary arrivals.rate=0.5,fast
