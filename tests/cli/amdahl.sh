# tfsim amdahl: the seed's table, TigerBench modes, formats, bad input.
# Sourced by tests/cli_test.sh ($TFSIM, $tmp, expect, expect_out, expect_err).

seed=configs/analysis/seed.ini

expect 0 "amdahl help" -- "$TFSIM" amdahl --help
expect_out "examples:" "amdahl help has examples"
expect_out "tfsim amdahl --tigerbench" "amdahl help shows the TigerBench modes"

# 1. the seed's own inputs
expect 0 "amdahl seed" -- "$TFSIM" amdahl $seed
expect_out "accounting P  *0.911" "seed accounting P"
expect_out "accounting S  *x  *3.06 " "seed accounting S"
expect_out "accounting predicted  *x  *2.58 " "seed accounting predicted"
expect_out "sessions P  *0.089 " "seed sessions P"
expect_out "sessions S  *x  *1.31 " "seed sessions S"
expect_out "sessions predicted  *x  *1.02 " "seed sessions predicted"
expect_out "combined (Amdahl)  *x  *2.73 " "seed combined"
expect_out "component speedup  *x  *2.74 " "seed component speedup"
expect_out "throughput speedup  *x  *3.17 " "seed throughput speedup"
expect_out "ceiling (rest -> 0)  *x  *2.2 " "seed ceiling"
expect_out "total from baseline  *x  *6 " "seed total"
expect_out "5 ms serial per request on 1 worker caps throughput at 200/s, but 861/s was measured" \
    "seed utilisation-law contradiction"
expect_out "identity, not a validation" "seed identity note"

expect 0 "amdahl seed csv" -- "$TFSIM" amdahl $seed --format csv
expect_out "^quantity,unit,seed,exact$" "seed csv header"
expect_out "^accounting predicted,x,2.58,2.588" "seed csv row"
expect_err "note: " "seed csv notes on stderr"
"$TFSIM" amdahl $seed --format csv >"$tmp/seed1.csv" 2>/dev/null
"$TFSIM" amdahl $seed --format csv >"$tmp/seed2.csv" 2>/dev/null
if cmp -s "$tmp/seed1.csv" "$tmp/seed2.csv"; then ok; else bad "amdahl csv not deterministic"; fi
expect 0 "amdahl seed json" -- "$TFSIM" amdahl $seed --format json
expect_out '"quantity": "combined (Amdahl)", "unit": "x", "seed": 2.73' "seed json row"
expect 0 "amdahl seed findings csv" -- "$TFSIM" amdahl $seed --format csv --table findings
expect_out "^law,severity,subject,measured,bound,message$" "findings csv header"
expect_out "^utilisation,violation," "findings csv row"
expect 0 "amdahl --set" -- "$TFSIM" amdahl $seed --set target.serial=1ms --table findings
if grep -q "but 861/s was measured (utilisation" "$tmp/out" && ! grep -q "^  \[violation\] TigerBeetle + Redis (tb_redis) checkout: 1 ms" "$tmp/out"; then ok; else bad "--set target.serial=1ms: 861/s should pass the 1 ms cap"; fi

# bad configs
expect 2 "amdahl no args" -- "$TFSIM" amdahl
expect_err "missing CONFIG" "no args message"
expect 2 "amdahl missing file" -- "$TFSIM" amdahl "$tmp/nope.ini"
expect_err "nope.ini: cannot open" "missing config message"
printf '[component.a]\nbaseline = 0ms\ntarget = 1ms\n' >"$tmp/zero.ini"
expect 2 "amdahl zero timing" -- "$TFSIM" amdahl "$tmp/zero.ini"
expect_err "zero.ini:2: component.a.baseline: must be > 0" "zero timing message"
printf '[component.a]\nbaseline = 2ms\ntarget = -1ms\n' >"$tmp/neg.ini"
expect 2 "amdahl negative timing" -- "$TFSIM" amdahl "$tmp/neg.ini"
expect_err "neg.ini:3: component.a.target: must be > 0" "negative timing message"
printf '[component.a]\nbaseline = 2ms\n' >"$tmp/miss.ini"
expect 2 "amdahl missing timing" -- "$TFSIM" amdahl "$tmp/miss.ini"
expect_err "miss.ini: component.a.target: required key is missing" "missing timing message"
printf '[amdahl]\nrounding = seed\n' >"$tmp/nocomp.ini"
expect 2 "amdahl no component" -- "$TFSIM" amdahl "$tmp/nocomp.ini"
expect_err "no \[component.NAME\] section" "no component message"
expect 2 "amdahl --set zero" -- "$TFSIM" amdahl $seed --set component.accounting.target=0ms
expect_err "\-\-set: component.accounting.target: must be > 0" "--set zero message"
expect 2 "amdahl unknown option" -- "$TFSIM" amdahl $seed --frobnicate
expect_err "unknown option '--frobnicate'" "unknown option message"
expect 2 "amdahl bad format" -- "$TFSIM" amdahl $seed --format xml
expect 2 "amdahl bad table" -- "$TFSIM" amdahl $seed --table points
expect_err "not one of amdahl, findings" "bad table message"

# 2. and 3. TigerBench data: pg_pg checkout follows a USL curve at 8
# concurrencies (2 repetitions), kinds at N=1 for pg_pg and tb_redis;
# reserve has only 3 concurrencies.
tbcsv="$tmp/tb.csv"
awk 'BEGIN {
  print "timestamp,tag,phase,accounting,payments,concurrency,db_pool_size,redis_max_conn,webhook_mode,arg_succeed_rate,total,ok,errors,walltime,throughput"
  split("1 5 10 20 40 60 80 100", lv, " ")
  for (i = 1; i <= 8; i++) {
    n = lv[i]; x = 120 * n / (1 + 0.25 * (n - 1) + 0.005 * n * (n - 1))
    for (r = 0; r < 2; r++) {
      xr = x * (r ? 1.01 : 0.99)
      printf "t,a,checkout,pg,pg,%d,10,512,direct,1.0,1000,1000,0,%.12g,%.12g\n", n, 1000 / xr, xr
    }
    printf "t,a,kind:accounting.hold,pg,pg,%d,10,512,,1.0,2000,0,0,%.12g,%.12g\n", n, 0.0003 * n, 0.005 * n
    printf "t,a,kind:paymentsession.save,pg,pg,%d,10,512,,1.0,1000,0,0,%.12g,%.12g\n", n, 0.0001 * n, 0.002 * n
  }
  for (i = 1; i <= 3; i++)
    printf "t,a,reserve,pg,pg,%d,10,512,direct,1.0,1000,1000,0,5,200\n", lv[i]
  print "t,a,kind:accounting.hold,tb,redis,1,10,512,,1.0,2000,0,0,0.001,0.0022"
  print "t,a,kind:paymentsession.save,tb,redis,1,10,512,,1.0,1000,0,0,0.00006,0.00026"
}' >"$tbcsv"

expect 0 "amdahl tigerbench compare" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --baseline pg_pg --target tb_redis --concurrency 1
expect_out "quantity  *unit  *measured  *seed_reading  *seed/measured" "compare columns"
expect_out "accounting baseline  *ms  *5  *0.3 " "compare reads mean and sd column"
expect_out "accounting: pg_pg 0.300 ms (sd column) vs 5.000 ms (mean)" "compare note on differing inputs"
expect 0 "amdahl tigerbench compare csv" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --baseline pg_pg --target tb_redis --format csv
expect_out "^quantity,unit,measured,seed_reading,seed/measured$" "compare csv header"
expect 2 "amdahl unknown arch" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --baseline pg_pg --target tb_tb
expect_err "tb.csv: architecture 'tb_tb' is not in the file (present: pg_pg, tb_redis)" "unknown arch message"
expect 2 "amdahl missing concurrency" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --baseline pg_pg --target tb_redis --concurrency 10
expect_err "tb_redis has no kind:accounting.hold rows at concurrency 10" "missing concurrency message"
expect 2 "amdahl compare needs target" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --baseline pg_pg
expect 2 "amdahl bad concurrency" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --baseline pg_pg --target tb_redis --concurrency x

expect 0 "amdahl usl" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --arch pg_pg --usl --phase checkout
expect_out "amdahl_pred  *amdahl_fit  *usl_fit" "usl points columns"
expect_out "usl  *120.0" "usl recovers lambda"
expect_out "findings (operational laws)" "usl findings"
expect 0 "amdahl usl csv" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --arch pg_pg --usl --phase checkout --format csv
expect_out "^arch,phase,concurrency,reps,x_mean,x_sd,amdahl_pred,amdahl_fit,usl_fit,simulated,simulated_half,r_ms,kinds_ms$" "usl csv header"
expect_out "^pg_pg,checkout,10,2," "usl csv row"
expect 0 "amdahl usl fits json" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --arch pg_pg --usl --phase checkout --format json --table fits
expect_out '"model": "usl", "lambda": 1' "usl fits json"
expect 2 "amdahl usl too few points" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --arch pg_pg --usl
expect_err "tb.csv: pg_pg reserve: USL fit: 3 distinct concurrencies, need at least 4" "too few points message"
expect 2 "amdahl usl unknown phase" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --arch pg_pg --usl --phase nope
expect_err "pg_pg has no 'nope' phase rows" "unknown phase message"
expect 2 "amdahl usl arch without phases" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --arch tb_redis --usl
expect_err "tb_redis has no phase rows" "no phases message"
expect 2 "amdahl --arch without --usl" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --arch pg_pg
expect_err "add --usl" "--arch without --usl message"
expect 2 "amdahl --usl without --arch" -- "$TFSIM" amdahl --tigerbench "$tbcsv" --usl

# malformed CSVs
printf 'phase,concurrency,throughput\ncheckout,1,100\n' >"$tmp/other.csv"
expect 2 "amdahl csv of another shape" -- "$TFSIM" amdahl --tigerbench "$tmp/other.csv" --arch pg_pg --usl
expect_err "other.csv:1: accounting: missing column" "another shape message"
head -3 "$tbcsv" >"$tmp/badnum.csv"
echo "t,a,checkout,pg,pg,30,10,512,direct,1.0,1000,1000,0,10,fast" >>"$tmp/badnum.csv"
expect 2 "amdahl non-numeric field" -- "$TFSIM" amdahl --tigerbench "$tmp/badnum.csv" --arch pg_pg --usl
expect_err "badnum.csv:4: throughput: 'fast' is not a number" "non-numeric message"
printf '%s\n' "$(head -1 "$tbcsv")" 't,a,"checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100' >"$tmp/quote.csv"
expect 2 "amdahl unterminated quote" -- "$TFSIM" amdahl --tigerbench "$tmp/quote.csv" --arch pg_pg --usl
expect_err "quote.csv:2: malformed CSV" "unterminated quote message"
expect 2 "amdahl missing csv" -- "$TFSIM" amdahl --tigerbench "$tmp/none.csv" --arch pg_pg --usl
expect_err "none.csv: cannot open" "missing csv message"
expect 2 "amdahl csv is a directory" -- "$TFSIM" amdahl --tigerbench "$tmp" --arch pg_pg --usl
expect_err "read error" "directory message"
sed 's/^\(t,a,kind:paymentsession.save,pg,pg,1,.*\),[^,]*$/\1,0/' "$tbcsv" >"$tmp/zero.csv"
expect 2 "amdahl zero kind timing" -- "$TFSIM" amdahl --tigerbench "$tmp/zero.csv" --baseline pg_pg --target tb_redis
expect_err "zero.csv:[0-9]*: kind:paymentsession.save of pg_pg at concurrency 1: the mean is 0, a time must be > 0" "zero kind timing message"
