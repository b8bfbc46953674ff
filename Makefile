# tfsim: plain Makefile.  `make` builds bin/tfsim; `make test` runs the unit
# tests, the same tests under ASan+UBSan, the command-line tests and the
# integration tests against real Redis and PostgreSQL; `make bench` prints
# the performance figures.  `make SAN=1` builds everything with sanitizers
# into build/san.  `make TB_CLIENT_DIR=/path` enables the TigerBeetle probe
# (needs tb_client.h in $(TB_CLIENT_DIR)/include or $(TB_CLIENT_DIR), and
# libtb_client in $(TB_CLIENT_DIR)/lib or $(TB_CLIENT_DIR)).

CC ?= cc
SAN ?= 0
ifeq ($(SAN),1)
BUILD := build/san
OPT := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD := build/rel
OPT := -O2 -g
endif

WARN := -std=c17 -Wall -Wextra -Wshadow -Wstrict-prototypes -Werror
CPPFLAGS += -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -I. -I$(BUILD) -I/usr/include/postgresql
CFLAGS += $(WARN) $(OPT)
LDLIBS := -lgsl -lgslcblas -lcsv -lsqlite3 -lhiredis -lpq -lpthread -lm

TB_CLIENT_DIR ?=
ifneq ($(TB_CLIENT_DIR),)
CPPFLAGS += -DTFSIM_HAVE_TB -I$(TB_CLIENT_DIR)/include -I$(TB_CLIENT_DIR)
LDLIBS += -L$(TB_CLIENT_DIR)/lib -L$(TB_CLIENT_DIR) -ltb_client
endif

LIB_SRC := $(sort $(wildcard sim/*.c models/*.c validate/*.c reports/*.c))
CLI_SRC := $(sort $(wildcard cli/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o) $(BUILD)/buildinfo.o
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
LIB := $(BUILD)/libtfsim.a

ifeq ($(SAN),1)
TFSIM := $(BUILD)/tfsim
else
TFSIM := bin/tfsim
endif

.PHONY: all test unit-test san-test cli-test integration-test bench fuzz clean FORCE
all: $(TFSIM)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# Build facts for the run manifest; rewritten only when they change.
$(BUILD)/buildinfo.c: FORCE
	@mkdir -p $(BUILD)
	@rev=$$(git describe --always --dirty 2>/dev/null || echo unknown); \
	 printf '/* generated */\nconst char tfsim_build_rev[] = "%s";\nconst char tfsim_build_flags[] = "%s";\n' \
	   "$$rev" "$(CC) $(CFLAGS)" > $@.tmp; \
	 cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TFSIM): $(CLI_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(LIB) tests/test_util.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDLIBS) -lcmocka

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Unit tests: every tests/test_*.c is one cmocka binary.
unit-test: $(TEST_BIN) $(TFSIM)
	@fail=0; for t in $(TEST_BIN); do \
	  TFSIM=$(TFSIM) $$t || fail=1; \
	done; exit $$fail

san-test:
	$(MAKE) SAN=1 unit-test cli-test

cli-test: $(TFSIM)
	TFSIM=$(TFSIM) sh tests/cli_test.sh

integration-test: $(TFSIM)
	TFSIM=$(TFSIM) sh tests/integration.sh

test: unit-test cli-test san-test integration-test

bench: $(BENCH_BIN) $(TFSIM)
	@for b in $(BENCH_BIN); do $$b || exit 1; done
	@TFSIM=$(TFSIM) sh bench/bench_cli.sh
	@TFSIM=$(TFSIM) sh bench/bench_cimba.sh

# libFuzzer (clang, ASan+UBSan) on each input reader for FUZZ_SECONDS
# (default 10) each; a crash prints the input and fails (tests/fuzz/run.sh).
fuzz:
	TFSIM_LDLIBS='$(LDLIBS)' MAKE='$(MAKE)' sh tests/fuzz/run.sh $(if $(FUZZ_SECONDS),$(FUZZ_SECONDS),10)

# Every shipped config under valgrind: no invalid accesses, no leaks.
valgrind-test: $(TFSIM)
	TFSIM=$(TFSIM) sh tests/valgrind.sh

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
