# scripts/pg_wake_groups.py: how the backends one PostgreSQL process wakes
# together come back (postgres.commit_tail), on a hand-made trace:
# - postgres 10 wakes 11, 12 and 13 at 1.000000, .000010 and .000020 (one
#   burst: each within 50 us of the one before); they switch out at
#   .000050, .000090 and .000130: gap (130 - 50) / 2 = 40 us, the first
#   back 50 us after the burst began;
# - postgres 20 wakes 21 and 22 100 us apart: two bursts of one, no group;
# - postgres 10 wakes 11 and 12 at 3.000000 and .000020, and a python3
#   process between them (not a backend: not counted); they switch out at
#   .000030 and .000130: gap 100 us, the first back after 30 us.
cat >"$tmp/groups.txt" <<'TRACE'
    postgres 10 [000] 1.000000: sched:sched_wakeup: comm=postgres pid=11 prio=120 target_cpu=001
    postgres 10 [000] 1.000010: sched:sched_wakeup: comm=postgres pid=12 prio=120 target_cpu=001
    postgres 10 [000] 1.000020: sched:sched_wakeup: comm=postgres pid=13 prio=120 target_cpu=001
    postgres 11 [001] 1.000050: sched:sched_switch: prev_comm=postgres prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=postgres next_pid=12 next_prio=120
    postgres 12 [001] 1.000090: sched:sched_switch: prev_comm=postgres prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=postgres next_pid=13 next_prio=120
    postgres 13 [001] 1.000130: sched:sched_switch: prev_comm=postgres prev_pid=13 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
    postgres 20 [000] 2.000000: sched:sched_wakeup: comm=postgres pid=21 prio=120 target_cpu=001
    postgres 20 [000] 2.000100: sched:sched_wakeup: comm=postgres pid=22 prio=120 target_cpu=001
    postgres 21 [001] 2.000200: sched:sched_switch: prev_comm=postgres prev_pid=21 prev_prio=120 prev_state=S ==> next_comm=postgres next_pid=22 next_prio=120
    postgres 22 [001] 2.000300: sched:sched_switch: prev_comm=postgres prev_pid=22 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
    postgres 10 [000] 3.000000: sched:sched_wakeup: comm=postgres pid=11 prio=120 target_cpu=001
    postgres 10 [000] 3.000010: sched:sched_wakeup: comm=python3 pid=30 prio=120 target_cpu=001
    postgres 10 [000] 3.000020: sched:sched_wakeup: comm=postgres pid=12 prio=120 target_cpu=001
    postgres 11 [001] 3.000030: sched:sched_switch: prev_comm=postgres prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=postgres next_pid=12 next_prio=120
    postgres 12 [001] 3.000130: sched:sched_switch: prev_comm=postgres prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
TRACE
expect 0 "pg_wake_groups on a hand-made trace" -- python3 scripts/pg_wake_groups.py "$tmp/groups.txt"
expect_out "^n=2 groups 1: gap 100 us mean, 100 us median; first back after 30 us$" "pg_wake_groups: the burst of two (a non-backend wakee not counted)"
expect_out "^n=3 groups 1: gap 40 us mean, 40 us median; first back after 50 us$" "pg_wake_groups: the burst of three"
expect_out "^groups of 3[+]: 1, gap 40 us mean$" "pg_wake_groups: the pooled gap of the groups of 3 or more"
if [ "$(grep -c '^n=' "$tmp/out")" = 2 ]; then ok; else bad "pg_wake_groups: wake-ups 100 us apart make no group"; fi
# --within 150: postgres 20's two wake-ups are one burst now (gap 100 us)
expect 0 "pg_wake_groups --within 150" -- python3 scripts/pg_wake_groups.py "$tmp/groups.txt" --within 150
expect_out "^n=2 groups 2: gap 100 us mean" "pg_wake_groups --within: a wider burst"
expect 2 "pg_wake_groups: no such file" -- python3 scripts/pg_wake_groups.py "$tmp/none.txt"
expect_err "none.txt" "pg_wake_groups names the file"
head -n 1 "$tmp/groups.txt" >"$tmp/one.txt"
expect 2 "pg_wake_groups: no group" -- python3 scripts/pg_wake_groups.py "$tmp/one.txt"
expect_err "no burst of postgres wake-ups" "pg_wake_groups says what it did not find"
