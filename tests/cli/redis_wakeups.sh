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
