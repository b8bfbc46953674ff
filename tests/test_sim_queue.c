/* Tests for sim_queue: FIFO order across wrap-around and growth. */
#include "tests/test_util.h"

#include "sim/sim_queue.h"

static void test_fifo_wrap_grow(void **state)
{
    (void)state;
    sim_queue q;
    sim_queue_init(&q, 3);
    assert_int_equal(q.cap, 8);
    sim_job j = {NULL, NULL, 0, 0};
    assert_int_equal(sim_queue_pop(&q, &j), 0);
    double next_in = 0, next_out = 0;
    /* push 5, pop 3 repeatedly: the ring wraps, then grows while wrapped */
    for (int round = 0; round < 200; round++) {
        for (int k = 0; k < 5; k++)
            sim_queue_push(&q, (sim_job){NULL, NULL, next_in++, 0});
        for (int k = 0; k < 3; k++) {
            assert_close(sim_queue_front(&q)->t, next_out, 0);
            assert_int_equal(sim_queue_pop(&q, &j), 1);
            assert_close(j.t, next_out++, 0);
        }
        assert_int_equal(sim_queue_len(&q), (size_t)(next_in - next_out));
        assert_true((q.cap & (q.cap - 1)) == 0);
    }
    while (sim_queue_pop(&q, &j))
        assert_close(j.t, next_out++, 0);
    assert_close(next_out, next_in, 0);
    sim_queue_fini(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_wrap_grow),
    };
    return cmocka_run_group_tests_name("sim_queue", tests, NULL, NULL);
}
