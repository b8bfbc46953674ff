# tfsim predict on the third live series of TigerFans on this kind of
# machine (tests/data/live_debian12_c.csv: measured after the Redis I/O
# threads' constants were traced, never fitted to; see tests/data/README.md).
# The default predict fits pg_pg with both load generators, keeps Debian's
# (the series was measured with it; before the calibration gave the holds
# table's cost per row a start of its own, the poor Debian fit lost to
# httpcore 1.0's and the prediction was 11.3%), and predicts pg_redis:
# measured 6.2% MAPE over concurrency 5-100 (Amdahl-style scaling 13.0%).
# The check is 10% (the run is deterministic).  60 iterations (5.3%, as
# with 150) and release build only, as tests/cli/live_tigerfans.sh.
case "$TFSIM" in
*/san/*) ;;
*)
    expect_live_predict tests/data/live_debian12_c.csv "Debian's" 10 "predict pg_redis from the third live pg_pg" 1
    ;;
esac
