# scripts/runqueue_waits.py: how long TigerFans' threads wait for a CPU, on
# a small synthetic perf trace (tests/data/perf_sched_sample.txt, worked by
# hand: server 200 on CPU 0, load generator 400 on CPU 1, backends 301 and
# 302; 301 woken twice onto CPU 1 while the load generator runs, waiting
# 300 and 100 us; 302 woken onto the server's CPU and run at once; a third
# wake-up onto CPU 2, whose idle-time events the trace lacks).
s=tests/data/perf_sched_sample.txt
expect 0 "runqueue_waits on a sample trace" -- python3 scripts/runqueue_waits.py $s --server 200 --requests 2
expect_out "^window 0.003 s, 2 requests$" "runqueue_waits: the window and the requests"
expect_out "^server: cpu 1.420 ms/request, 0.50 wake-ups/request, wake to run median 10 us, mean 10 us, 0.005 ms/request; preempted to run 0.025 ms/request$" \
    "runqueue_waits: the server's CPU, its wake-up and its preemption"
expect_out "^postgres: cpu 0.175 ms/request, 1.50 wake-ups/request, wake to run median 100 us, mean 133 us, 0.200 ms/request; preempted to run 0.000 ms/request$" \
    "runqueue_waits: the backends' waits from wake-up to running"
expect_out "^client: cpu 1.290 ms/request, 0.50 wake-ups/request, wake to run median 20 us, mean 20 us, 0.010 ms/request; preempted to run 0.100 ms/request$" \
    "runqueue_waits: the load generator preempted by a backend"
expect_out "^postgres wake-ups by what ran on their CPU: server 1 (33%, mean 0 us), client 2 (67%, mean 200 us)$" \
    "runqueue_waits: the backends' wake-ups by what ran on their CPU"
expect_out "^cpu 2: no event while idle" "runqueue_waits: says which CPU's idle-time events are missing"
if grep -q "^cpu [01]:" "$tmp/out"; then bad "runqueue_waits: CPUs with idle-time events flagged"; else ok; fi
expect_out "^stacking: a CPU idle while another has a thread waiting 0.0% of the time, 0.000 cores lost; random placement of the same runnable threads on 3 CPUs: 0.426; ratio 0.00$" \
    "runqueue_waits: no stacking in the first sample"
# A second sample (tests/data/perf_stacking_sample.txt, worked by hand, 2 CPUs,
# CPU 1 without idle-time events, 1 ms): 103 waits on CPU 0 behind 101 while
# CPU 1 idles (200-500 us), 105 is woken onto the idle CPU 1 and runs at once,
# 106 waits on CPU 0 while CPU 1 idles again (800-900 us): 400 us lost; the
# runnable threads number 1 for 300 us, 2 for 600 us, 3 for 100 us, and
# random placement on 2 CPUs loses 0.5 core with 2 and 0.25 with 3: 0.325.
s2=tests/data/perf_stacking_sample.txt
expect 0 "runqueue_waits on a stacking sample" -- python3 scripts/runqueue_waits.py $s2 --server 101 --requests 1
expect_out "^stacking: a CPU idle while another has a thread waiting 40.0% of the time, 0.400 cores lost; random placement of the same runnable threads on 2 CPUs: 0.325; ratio 1.23$" \
    "runqueue_waits: the cores lost to stacking against random placement"
expect 2 "runqueue_waits: no such file" -- python3 scripts/runqueue_waits.py "$tmp/none.txt" --server 200 --requests 2
expect_err "none.txt" "runqueue_waits names the file"
printf 'no events here\n' > "$tmp/empty.txt"
expect 2 "runqueue_waits: no scheduler event" -- python3 scripts/runqueue_waits.py "$tmp/empty.txt" --server 200 --requests 2
expect_err "empty.txt: no sched_wakeup or sched_switch event" "runqueue_waits says what it did not find"
expect 2 "runqueue_waits: requests not positive" -- python3 scripts/runqueue_waits.py $s --server 200 --requests 0
expect_err "requests must be positive" "runqueue_waits checks --requests"
