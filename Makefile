# fpdiv — build, test, install.  `make V=1` shows the commands; `make WERROR=1` (set in CI) fails on warnings.

PREFIX  ?= /usr/local
CC      ?= cc
BUILD   := build
PKGS    := openblas libxxhash jansson
TESTPKGS := criterion mpfr

ifeq ($(CI),true)
WERROR ?= 1
endif

# -ffp-contract=off everywhere: every FMA in fpdiv is written out, none is left to the compiler.
CFLAGS  ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Wfloat-equal -ffp-contract=off -MMD -MP \
                   $(shell pkg-config --cflags $(PKGS))
ifeq ($(WERROR),1)
override CFLAGS += -Werror
endif
LDLIBS  := $(shell pkg-config --libs $(PKGS)) -ldl -lm
TEST_CFLAGS := $(shell pkg-config --cflags $(TESTPKGS))
TEST_LDLIBS := $(shell pkg-config --libs $(TESTPKGS))

ifeq ($(V),1)
Q :=
else
Q := @
endif

CORE_SRC   := $(filter-out src/main.c,$(wildcard src/*.c)) $(wildcard kernels/cpu/*.c)
CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ   := $(BUILD)/obj/src/main.o
UNIT_SRC   := $(wildcard tests/unit/*.c)
PLUGIN_SRC := $(wildcard tests/plugins/*.c)
PLUGINS    := $(PLUGIN_SRC:tests/plugins/%.c=$(BUILD)/plugins/%.so)
UNIT_OBJ   := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)

.PHONY: all test unit-test cli-test bench clean install uninstall
all: $(BUILD)/fpdiv

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -Isrc -c $< -o $@

$(BUILD)/libfpdiv.a: $(CORE_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)$(AR) rcs $@ $^

$(BUILD)/fpdiv: $(MAIN_OBJ) $(BUILD)/libfpdiv.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Test plugins: built exactly as a user would build one, against src/fpdiv_backend.h alone.
$(BUILD)/plugins/%.so: tests/plugins/%.c src/fpdiv_backend.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  PLUGIN  $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -ffp-contract=off $(if $(filter 1,$(WERROR)),-Werror) -fPIC -shared -Isrc -o $@ $< -lm

$(BUILD)/unit-tests: $(UNIT_OBJ) $(BUILD)/libfpdiv.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS) $(LDLIBS)

# Every suite always runs; the target fails if any failed. The committed corpus is replayed last:
# a case that got worse fails the build.
test: $(BUILD)/fpdiv $(BUILD)/unit-tests $(PLUGINS)
	@status=0; \
	$(BUILD)/unit-tests --jobs 2 || status=1; \
	FPDIV=$(BUILD)/fpdiv tests/cli/run.sh || status=1; \
	$(BUILD)/fpdiv replay corpus || status=1; \
	exit $$status

unit-test: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

cli-test: $(BUILD)/fpdiv $(PLUGINS)
	FPDIV=$(BUILD)/fpdiv tests/cli/run.sh

BENCH_SRC := $(wildcard scripts/bench/*.c)
BENCH_BIN := $(BENCH_SRC:scripts/bench/%.c=$(BUILD)/bench/%)

$(BUILD)/bench/%: scripts/bench/%.c $(BUILD)/libfpdiv.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -Isrc -o $@ $< $(BUILD)/libfpdiv.a $(LDLIBS)

# Benchmarks: run on an idle machine; each prints what it measured and how.
bench: $(BENCH_BIN)
	@for b in $(BENCH_BIN); do $$b || exit 1; done

install: $(BUILD)/fpdiv
	install -D -m 755 $(BUILD)/fpdiv $(DESTDIR)$(PREFIX)/bin/fpdiv
	install -D -m 644 src/fpdiv_backend.h $(DESTDIR)$(PREFIX)/include/fpdiv_backend.h

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fpdiv $(DESTDIR)$(PREFIX)/include/fpdiv_backend.h

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
