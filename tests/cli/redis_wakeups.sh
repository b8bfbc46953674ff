# scripts/redis_wakeups.py: what redis.wake_wait is measured from, on a
# small synthetic perf trace (tests/data/perf_redis_sample.txt: 12 Redis
# cycles, 2 of them with 8+ clients; 10 wake-ups by the server, 4 onto its
# own CPU (2 us), 5 onto the idle one (20 us), 1 that waits 1.5 ms and
# is followed by a 3 ms I/O-thread episode).
s=tests/data/perf_redis_sample.txt
expect 0 "redis_wakeups on a sample trace" -- python3 scripts/redis_wakeups.py $s --redis 100 --server 200
expect_out "^cycles 12: 1 client 9, 2-7 1, 8 or more 2$" "redis_wakeups counts the cycles by size"
expect_out "^wakeups onto the server's CPU: 4, wait median 2 us, p90 2 us$" "redis_wakeups: wake-ups onto the sender's CPU"
expect_out "^wakeups onto another CPU: 6, wait median 20 us" "redis_wakeups: wake-ups onto another CPU"
# every wake-up of the sample finds the other CPU idle (its idle task
# switched in), none finds it busy
expect_out "^wakeups with another CPU idle: 10, onto another CPU 6 [(]0.600[)]$" "redis_wakeups: wake-ups while another CPU idles"
if grep -q "every other CPU busy" "$tmp/out"; then bad "redis_wakeups: no wake-up of the sample finds the other CPU busy"; else ok; fi
expect_out "> 1 ms 0.1000, > 2 ms 0.0000$" "redis_wakeups: the share that waited over 1 ms"
expect_out "^episodes 1: median 3.0 ms, longest 3.0 ms, 0.200 of the window$" "redis_wakeups: the I/O threads' episode"
# runs: the 9-client cycle (to the next, 0.98 ms) and the 8-client one
# (3.49 ms); 17 of the 28 ready clients; Redis's threads on a core 15 + 3 +
# 10 us (main) + 3 ms (io_thd_1) of the 4.47 ms
expect_out "^runs of 8[+] cycles 2: 2 cycles, median 1.0 ms each, 0.298 of the window, 0.607 of the clients; Redis ran 0.68 cores in them$" "redis_wakeups: runs of 8+ cycles, the clients served and Redis's cores in them"
expect_out "^wake_wait 0.0000$" "redis_wakeups: redis.wake_wait from the waits over 2 ms"
# placement: Redis runs on CPU 0, then 1 (1.007002: the server's CPU, 5.5
# ms), then 0 again (1.0125); the server stays on 1.  Of the 10 wake-ups
# in the window, 2 (1.007, 1.011) are not onto the CPU Redis last ran on;
# the 4 cycles while it shared the server's CPU are small, the two of 8+
# came apart
expect_out "^wakeups onto Redis's previous CPU: 8 of 10 [(]0.800[)]$" "redis_wakeups: wake-ups onto Redis's previous CPU"
expect_out "^Redis on the server's CPU 0.367 of the window, 3 spells in and out, mean 5.0 ms; cycles of 8[+]: 0 of 4 while on it, 2 of 8 apart$" "redis_wakeups: Redis on the server's CPU (host.redis_affine_share, host.affine_period)"
expect 2 "redis_wakeups: no such file" -- python3 scripts/redis_wakeups.py "$tmp/none.txt" --redis 100 --server 200
expect_err "none.txt" "redis_wakeups names the file"
expect 2 "redis_wakeups: another thread" -- python3 scripts/redis_wakeups.py $s --redis 7 --server 200
expect_err "no event-loop cycle of thread 7" "redis_wakeups says what it did not find"
# the other case, by hand: the server (200) on CPU 1, a backend (300) on
# CPU 0; Redis woken once onto CPU 0 (busy: it waits for the backend) and
# once onto the server's own CPU (a first cycle at 2.0005 opens the window)
cat >"$tmp/busy.txt" <<'TRACE'
    x 0 [000] 2.000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=S ==> next_comm=postgres next_pid=300 next_prio=120
    x 0 [001] 2.000001: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=S ==> next_comm=python3 next_pid=200 next_prio=120
    redis-server 100 [000] 2.000500: syscalls:sys_exit_epoll_wait: 0x1
    python3 200 [001] 2.001000: sched:sched_wakeup: comm=redis-server pid=100 prio=120 target_cpu=000
    x 300 [000] 2.001100: sched:sched_switch: prev_comm=postgres prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=redis-server next_pid=100 next_prio=120
    redis-server 100 [000] 2.001105: syscalls:sys_exit_epoll_wait: 0x1
    x 100 [000] 2.001110: sched:sched_switch: prev_comm=redis-server prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=postgres next_pid=300 next_prio=120
    python3 200 [001] 2.002000: sched:sched_wakeup: comm=redis-server pid=100 prio=120 target_cpu=001
    x 200 [001] 2.002010: sched:sched_switch: prev_comm=python3 prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=redis-server next_pid=100 next_prio=120
    redis-server 100 [001] 2.002015: syscalls:sys_exit_epoll_wait: 0x1
TRACE
expect 0 "redis_wakeups, the other CPU busy" -- python3 scripts/redis_wakeups.py "$tmp/busy.txt" --redis 100 --server 200
expect_out "^wakeups with every other CPU busy: 2, onto another CPU 1 [(]0.500[)]$" "redis_wakeups: wake-ups while the other CPU is busy"
if grep -q "another CPU idle" "$tmp/out"; then bad "redis_wakeups: no wake-up of the busy trace finds a CPU idle"; else ok; fi
# Redis, first seen running at 2.0011 on CPU 0, is woken at 2.002 onto CPU
# 1, where the server runs: not onto its previous CPU (the wake-up at
# 2.001, before it was seen running, is not counted); it shares the
# server's CPU from 2.00201 to the window's end (2.002015), 5 us of 1.515 ms
expect_out "^wakeups onto Redis's previous CPU: 0 of 1 [(]0.000[)]$" "redis_wakeups: a wake-up that moves Redis"
expect_out "^Redis on the server's CPU 0.003 of the window, 2 spells in and out" "redis_wakeups: the spell on the server's CPU"
# spells, by hand: the server runs on CPU 1 throughout; Redis sits on 0,
# moved to 1 at 3.002, 0 at 3.006, 1 at 3.010, 0 at 3.012, 1 at 3.015 (the
# window 3.00001 to 3.01601): on the server's CPU 4 + 2 + 1.01 of 16 ms.
# CPU 0 idles from 3.00002 but for an I/O thread's run (3.007-3.0075): idle
# CPU time on the server's CPU 4 + 2 + 1.01 ms over the 2 spells that
# ended there, apart 1.98 + 3.5 + 3 ms over 3
cat >"$tmp/spells.txt" <<'TRACE'
    x 0 [001] 3.000000: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=S ==> next_comm=python3 next_pid=200 next_prio=120
    x 0 [000] 3.000001: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=S ==> next_comm=redis-server next_pid=100 next_prio=120
    redis-server 100 [000] 3.000010: syscalls:sys_exit_epoll_wait: 0x1
    x 100 [000] 3.000020: sched:sched_switch: prev_comm=redis-server prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
    x 0 [001] 3.002000: sched:sched_migrate_task: comm=redis-server pid=100 prio=120 orig_cpu=0 dest_cpu=1
    x 0 [000] 3.006000: sched:sched_migrate_task: comm=redis-server pid=100 prio=120 orig_cpu=1 dest_cpu=0
    x 0 [000] 3.007000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=S ==> next_comm=io_thd_1 next_pid=300 next_prio=120
    x 300 [000] 3.007500: sched:sched_switch: prev_comm=io_thd_1 prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
    x 0 [001] 3.010000: sched:sched_migrate_task: comm=redis-server pid=100 prio=120 orig_cpu=0 dest_cpu=1
    x 0 [000] 3.012000: sched:sched_migrate_task: comm=redis-server pid=100 prio=120 orig_cpu=1 dest_cpu=0
    x 0 [001] 3.015000: sched:sched_migrate_task: comm=redis-server pid=100 prio=120 orig_cpu=0 dest_cpu=1
    redis-server 100 [001] 3.016010: syscalls:sys_exit_epoll_wait: 0x1
TRACE
expect 0 "redis_wakeups, spells" -- python3 scripts/redis_wakeups.py "$tmp/spells.txt" --redis 100 --server 200
expect_out "^Redis on the server's CPU 0.438 of the window, 6 spells in and out, mean 2.7 ms; cycles of 8[+]: 0 of 1 while on it, 0 of 1 apart$" "redis_wakeups: spells on and off the server's CPU"
expect_out "^spells on the idle CPUs' clock: on the server's CPU 2 ended, 7.0 ms of idle CPU [(]mean 3.51 ms[)]; apart 3 ended, 8.5 ms [(]mean 2.83 ms[)] [(]host.redis_affine_share 0.554, host.affine_period 3.17 ms[)]$" "redis_wakeups: the spells on the idle CPUs' clock give the share and the period"
