# tfsim predict on a live run of TigerFans itself on this kind of machine
# (tests/data/live_debian12.csv: pg_pg and pg_redis, Debian 12's Python
# stack, 2 cores; see tests/data/README.md).  The default predict fits the
# pg_pg baseline from the file with both load generators and keeps
# Debian's (the data were measured with it), then predicts pg_redis, which
# the file also holds (PostgreSQL's costs and state pg_pg's, Redis's from
# pg_redis's light-load timings).  Measured: 7.8% MAPE over concurrency
# 5-100 (20 points; Amdahl-style scaling 11.8%); the target for live runs is
# 15%, the check 10% (the run is deterministic).  The fits run 60
# simplex iterations instead of predict's 150 to keep the suite short: the
# Debian fit, the one kept, has converged by then (6.8% against 6.9%, 40 s
# against 60).  Release build only: several minutes under the sanitizers.
case "$TFSIM" in
*/san/*) ;;
*)
    expect_live_predict tests/data/live_debian12.csv "Debian's" 10 "predict pg_redis from live pg_pg" 1
    ;;
esac
