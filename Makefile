# fpdiv — build, test, install.  `make V=1` shows the commands; `make WERROR=1` (set in CI) fails on warnings.

PREFIX  ?= /usr/local
# Where `make install` puts the plugins fpdiv loads by itself (fpdiv-cuda.so); fpdiv also finds them
# in ../lib/fpdiv beside its binary, so a tree installed under another prefix works where it lands.
LIBDIR  ?= $(PREFIX)/lib/fpdiv
CC      ?= cc
# SANITIZE=1: AddressSanitizer and UndefinedBehaviorSanitizer, in a build directory of its own
# (the CUDA plugin is left out: nothing of it runs where there is no GPU; its adapters are tested
# on the stand-in runtime, tests/gpu/standin/).
ifeq ($(SANITIZE),1)
BUILD   := build-sanitize
NO_CUDA_PLUGIN := 1
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else ifeq ($(FUZZ),1)
# FUZZ=1: clang with libFuzzer's coverage and the sanitizers, for the parser harnesses in tests/fuzz/.
BUILD   := build-fuzz
CC      := clang
CUDA    := 0
SANITIZE_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
BUILD   := build
endif
# BLAS libraries are not linked: each is loaded at run time, in a namespace of its own
# (src/backends/cblas_library.h). Only the benchmarks that time OpenBLAS against fpdiv's kernels link it.
PKGS    := libxxhash jansson libzip
TESTPKGS := criterion mpfr

ifeq ($(CI),true)
WERROR ?= 1
endif

# Objects depend on this file: a changed flag rebuilds them.
# -ffp-contract=off everywhere: every FMA in fpdiv is written out, none is left to the compiler.
# -fPIC: the CUDA plugin links a few core objects (dtype conversions, staging) into itself.
CFLAGS  ?= -O2 -g
# -Isrc -Iinclude -Ikernels: every include names its room ("engine/check.h", "cpu/kernels.h").
override CFLAGS += -std=gnu11 -Wall -Wextra -Wfloat-equal -ffp-contract=off -fPIC -MMD -MP -Isrc -Iinclude -Ikernels \
                   $(shell pkg-config --cflags $(PKGS))
# gcc's default cost model at -O2 vectorizes a loop only when no scalar remainder is left, so
# per-element loops over runtime lengths (comparison, bias, conversion) stayed scalar: "cheap"
# takes them, 5-10% of a check at max-dim 64 and 256. Vectorization reassociates no sum (that
# takes -ffast-math) and changes no value. Compilers without the option skip it.
# Not for fpdiv's own kernels: their loops are written for the default model (fixed-width column
# blocks, kernels/cpu/columns.h); with "cheap", seq ran slower (bench_kernels, n = 64: 17 against
# 24 GFLOP/s in f32, 10 against 23 in f64).
VECT_COST := $(shell $(CC) -fvect-cost-model=cheap -E -x c /dev/null >/dev/null 2>&1 && echo -fvect-cost-model=cheap)
override CFLAGS += $(VECT_COST)
$(BUILD)/obj/kernels/cpu/%.o: VECT_COST :=
# gcc makes a copy loop of a run-time count a call of memcpy (pairwise's stack of partial sums, a
# block of 1 to 15 columns): a call per term, 12% of a tall check's time (2^21 rows of n = 2).
# Compilers without the option (clang, for the parser fuzzers) skip it.
NO_LOOP_PATTERNS := $(shell $(CC) -fno-tree-loop-distribute-patterns -E -x c /dev/null >/dev/null 2>&1 && \
                      echo -fno-tree-loop-distribute-patterns)
$(BUILD)/obj/kernels/cpu/%.o: override CFLAGS += $(NO_LOOP_PATTERNS)
# The tensor-core GEMM's helpers on vectors of 64 bytes are always inlined, so no such vector
# passes through a call; gcc still notes, once per file and past any pragma, that the ABI of such
# a call changed in gcc 4.6.
$(BUILD)/obj/kernels/cpu/tensor_core.o: CFLAGS += -Wno-psabi
# x86-64 gcc's generic tuning zeroes and copies a mid-size struct of known size (a check's result,
# 600 bytes; a worker message) with `rep stos`/`rep movs`, whose start-up is tens of cycles, and a
# check at max-dim 16 does several. glibc's memset/memcpy, chosen for the CPU at run time, take
# them faster: a few per cent more checks/s at max-dim 16 (BENCHMARKS.md). Small structs are still
# stored inline. Compilers without the options skip them.
STRINGOP := $(shell $(CC) -mmemset-strategy=libcall:-1:noalign -mmemcpy-strategy=libcall:-1:noalign \
                    -E -x c /dev/null >/dev/null 2>&1 && echo -mmemset-strategy=libcall:-1:noalign \
                    -mmemcpy-strategy=libcall:-1:noalign)
override CFLAGS += $(STRINGOP)
ifeq ($(WERROR),1)
override CFLAGS += -Werror
endif
override CFLAGS += $(SANITIZE_FLAGS)
override LDFLAGS += $(SANITIZE_FLAGS)
LDLIBS  := $(shell pkg-config --libs $(PKGS)) -ldl -lm
TEST_CFLAGS := $(shell pkg-config --cflags $(TESTPKGS))
TEST_LDLIBS := $(shell pkg-config --libs $(TESTPKGS))

ifeq ($(V),1)
Q :=
else
Q := @
endif

# src/ROOM/*.c, not src/backends/cuda/ (the CUDA plugin's). Their names are unique across rooms: a
# static library keeps one member per file name.
CORE_SRC   := $(filter-out src/cli/main.c,$(wildcard src/*/*.c)) $(wildcard kernels/cpu/*.c)
CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ   := $(BUILD)/obj/src/cli/main.o
ifneq ($(words $(notdir $(CORE_SRC))),$(words $(sort $(notdir $(CORE_SRC)))))
$(error two files of libfpdiv.a share a name: $(sort $(notdir $(CORE_SRC))))
endif
UNIT_SRC   := $(wildcard tests/unit/*.c)
PLUGIN_SRC := $(wildcard tests/plugins/*.c)
PLUGINS    := $(PLUGIN_SRC:tests/plugins/%.c=$(BUILD)/plugins/%.so)
UNIT_OBJ   := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)

# The CUDA plugin, when nvcc is found (CUDA_HOME, PATH, or /usr/local/cuda); CUDA=0 disables it.
ifneq ($(CUDA),0)
NVCC ?= $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null) \
                    $(wildcard /usr/local/cuda/bin/nvcc))
endif
ifneq ($(NVCC),)
CUDA_ROOT   := $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_ROOT)/lib64 $(CUDA_ROOT)/targets/x86_64-linux/lib) $(CUDA_ROOT)/lib)
CUDA_PLUGIN := $(if $(NO_CUDA_PLUGIN),,$(BUILD)/fpdiv-cuda.so)
# Code for sm_70 (V100), sm_75 (T4), sm_80 (A100), sm_90 (H100/H200), those this nvcc still builds
# (CUDA 13 dropped Volta), and PTX for anything newer. FMAs only where written (--fmad=false), and
# subnormals kept (--ftz=false, which is nvcc's default; set so that no flag elsewhere changes it).
NVCC_ARCHS  := $(filter $(addprefix compute_,70 75 80 90),$(shell $(NVCC) --list-gpu-arch 2>/dev/null))
NVCCFLAGS   ?= -O2 -g
override NVCCFLAGS += --fmad=false --ftz=false -Ikernels -Xcompiler -fPIC \
                      $(foreach a,$(NVCC_ARCHS),-gencode arch=$(a),code=$(subst compute_,sm_,$(a))) \
                      -gencode arch=compute_90,code=compute_90
CUDA_CU_OBJ := $(patsubst %.cu,$(BUILD)/obj/%.o,$(wildcard kernels/cuda/*.cu))
CUDA_C_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard src/backends/cuda/*.c))
CUDA_CORE   := $(addprefix $(BUILD)/obj/src/,common/dtype.o common/scratch.o backends/backend_util.o common/isolate.o \
               common/env_number.o common/text.o) \
               $(BUILD)/obj/kernels/cpu/vector_width.o
endif

.PHONY: all man test test-gpu test-pinned unit-test cli-test layout-test doc-test gpu-bundle gpu-rehearsal cuda-host-test fuzz-parsers bench clean install uninstall \
        readme-screenshot
all: $(BUILD)/fpdiv $(CUDA_PLUGIN)

$(BUILD)/obj/src/backends/plugin.o: CFLAGS += -DFPD_LIBDIR='"$(LIBDIR)"'
# Where the reference BLAS is (Debian's multiarch directory), and the Python environment that
# scripts/install-deps.sh makes (oneMKL from PyPI is found there).
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
VENV      ?= $(CURDIR)/.venv
$(BUILD)/obj/src/backends/backend_cblas.o: CFLAGS += $(if $(MULTIARCH),-DFPD_MULTIARCH='"$(MULTIARCH)"')
$(BUILD)/obj/src/backends/backend_util.o: CFLAGS += -DFPD_VENV='"$(VENV)"'
# The bridge's server, in the source tree and where `make install` puts it.
$(BUILD)/obj/src/backends/backend_framework.o: CFLAGS += -DFPD_BRIDGE_DIR='"$(CURDIR)/scripts/bridge"' \
                                                         -DFPD_BRIDGE_INSTALLED='"$(PREFIX)/share/fpdiv/bridge"'
$(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -c $< -o $@

ifneq ($(NVCC),)
$(BUILD)/obj/src/backends/cuda/%.o: src/backends/cuda/%.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -isystem $(CUDA_ROOT)/include -c $< -o $@

$(BUILD)/obj/kernels/cuda/%.o: kernels/cuda/%.cu kernels/cuda/kernels.cuh kernels/cpu/kernels.h Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $<")
	$(Q)$(NVCC) $(NVCCFLAGS) -c $< -o $@

# The CUDA runtime is linked statically, so the plugin loads wherever cuBLAS is, and reports "no
# device" through its backends rather than failing to load.
$(BUILD)/fpdiv-cuda.so: $(CUDA_CU_OBJ) $(CUDA_C_OBJ) $(CUDA_CORE)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(NVCC) -shared -cudart static -o $@ $^ -L$(CUDA_LIBDIR) -lcublasLt -lcublas -Xlinker -rpath=$(CUDA_LIBDIR)

endif

# Made afresh: `ar r` keeps the members of sources that are gone.
$(BUILD)/libfpdiv.a: $(CORE_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/fpdiv: $(MAIN_OBJ) $(BUILD)/libfpdiv.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Test plugins: built exactly as a user would build one, against include/fpdiv_backend.h alone (and
# never with the sanitizers: they stand for the library under test, whose crashes are the point).
$(BUILD)/plugins/%.so: tests/plugins/%.c include/fpdiv_backend.h $(wildcard tests/plugins/abi*/fpdiv_backend.h) \
                       $(wildcard tests/plugins/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  PLUGIN  $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -ffp-contract=off $(if $(filter 1,$(WERROR)),-Werror) -fPIC -shared -Iinclude -o $@ $< -lm
$(BUILD)/plugins/old_abi2.so $(BUILD)/plugins/old_abi4.so $(BUILD)/plugins/old_abi5.so $(BUILD)/plugins/old_abi6.so \
    $(BUILD)/plugins/old_abi7.so $(BUILD)/plugins/old_abi8.so: \
    tests/plugins/old_abi.c

# Two CBLAS libraries exporting the same names, summing in opposite orders (tests/blas/clash.c): each
# must give its own answers beside the other.
# libclash_global.so makes the forward one's names global when it loads, as oneMKL does with its parts.
CLASH_LIBS := $(addprefix $(BUILD)/blas/libclash_,forward.so backward.so global.so)
$(BUILD)/blas/libclash_global.so: $(BUILD)/blas/libclash_forward.so
$(BUILD)/blas/libclash_%.so: tests/blas/clash.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BLAS    $@")
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -ffp-contract=off -fPIC -shared \
	    $(if $(filter backward,$*),-DBACKWARD=1) \
	    $(if $(filter global,$*),-DLOAD_GLOBALLY='"$(abspath $(BUILD))/blas/libclash_forward.so"') -o $@ $< -lm -ldl

# The bug zoo (tests/zoo/): CBLAS wrappers of a real library, each with one planted fault
# (tests/zoo/faults/NAME.c, linked over the forwarding layer tests/zoo/wrap.c); libnone.so is the
# control, with none.
ZOO_LIBS := $(patsubst tests/zoo/faults/%.c,$(BUILD)/zoo/lib%.so,$(wildcard tests/zoo/faults/*.c))
$(BUILD)/zoo/lib%.so: tests/zoo/faults/%.c tests/zoo/wrap.c tests/zoo/zoo.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  ZOO     $@")
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -ffp-contract=off -fPIC -shared \
	    -o $@ $< tests/zoo/wrap.c -ldl

# A CUDA driver that crashes or hangs when called (tests/drivers/), for the CUDA plugin's probe.
FAKE_DRIVER := $(if $(CUDA_PLUGIN),$(BUILD)/drivers/libcuda.so.1)
$(BUILD)/drivers/libcuda.so.1: tests/drivers/fake_libcuda.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  DRIVER  $@")
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -fPIC -shared -o $@ $<

# strdup and free wrapped: tests/unit/test_ci.c makes strdup fail to test what out of memory leaves
$(BUILD)/unit-tests: $(UNIT_OBJ) $(BUILD)/libfpdiv.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -Wl,--wrap=strdup,--wrap=free -o $@ $^ $(TEST_LDLIBS) $(LDLIBS)

# The tensor-core models against the GPUs' own measurements, which fpdiv does not carry:
# scripts/validate-tensor-cores.sh PATH/TO/MATLAB-tensor-core runs it (doc/tensor-cores.md).
$(BUILD)/tc-validate: $(BUILD)/obj/tests/tensor_core/validate_hardware.o $(BUILD)/libfpdiv.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The CUDA kernels' own source on the CPU (tests/gpu/host/): each kernels/cuda/NAME.cu compiled by
# the host C++ compiler, with the shim's header in front of it and its stand-ins for the toolkit's
# headers, as an sm_90 build would see it (WMMA takes f16 and bf16). No CUDA toolkit is needed.
# tests/gpu/host/mutants.sh builds the same tests from copies with planted faults: HOST_KERNELS
# names their directory, HOST_TESTS the binary.
CXX ?= g++
HOST_KERNELS ?= kernels/cuda
HOST_TESTS   ?= $(BUILD)/cuda-host-tests
HOST_OBJ_DIR := $(if $(filter kernels/cuda,$(HOST_KERNELS)),$(BUILD)/obj/host,$(HOST_KERNELS))
HOST_CU_OBJ  := $(patsubst $(HOST_KERNELS)/%.cu,$(HOST_OBJ_DIR)/%.o,$(wildcard $(HOST_KERNELS)/*.cu))
HOST_CUFLAGS  = -std=c++17 -O2 -g -Wall -Wextra -ffp-contract=off $(if $(filter 1,$(WERROR)),-Werror) \
                $(SANITIZE_FLAGS) -Itests/gpu/host -Itests/gpu/host/include -Ikernels
HOST_DEPS    := $(wildcard tests/gpu/host/*.h tests/gpu/host/include/*.h) kernels/cuda/kernels.cuh kernels/cpu/kernels.h
$(HOST_OBJ_DIR)/%.o: $(HOST_KERNELS)/%.cu $(HOST_DEPS) Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCU  $<")
	$(Q)$(CXX) $(HOST_CUFLAGS) -include tests/gpu/host/cuda_host.h -D__CUDA_ARCH__=900 -x c++ -c $< -o $@
$(BUILD)/obj/host/runtime.o: tests/gpu/host/runtime.cc $(HOST_DEPS) Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) $(HOST_CUFLAGS) -c $< -o $@
$(BUILD)/obj/host/test_twins.o: tests/gpu/host/test_twins.c $(HOST_DEPS) Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -Itests/gpu/host -Itests/gpu/host/include -c $< -o $@
$(HOST_TESTS): $(BUILD)/obj/host/test_twins.o $(BUILD)/obj/host/runtime.o $(HOST_CU_OBJ) $(BUILD)/libfpdiv.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CXX) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS) $(LDLIBS)

ifneq ($(NVCC),)
# The CUDA adapters (src/backends/cuda/) on the CPU: linked with a stand-in CUDA runtime, cuBLAS and
# cuBLASLt (tests/gpu/standin/, built against the toolkit's headers) and the kernels through the
# host shim, instead of the toolkit's libraries.
STANDIN_OBJ := $(patsubst tests/gpu/standin/%.c,$(BUILD)/obj/standin/%.o,$(wildcard tests/gpu/standin/*.c))
CUDA_ADAPTER_TESTS := $(BUILD)/cuda-adapter-tests
$(BUILD)/obj/standin/%.o: tests/gpu/standin/%.c $(wildcard tests/gpu/standin/*.h) tests/gpu/host/host_runtime.h Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -isystem $(CUDA_ROOT)/include -Itests/gpu/host -Itests/gpu/standin -c $< -o $@
$(CUDA_ADAPTER_TESTS): $(STANDIN_OBJ) $(filter-out %/plugin.o,$(CUDA_C_OBJ)) $(BUILD)/obj/host/runtime.o $(HOST_CU_OBJ) \
                       $(BUILD)/libfpdiv.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CXX) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS) $(LDLIBS)
endif

# Parser fuzzing: each harness in tests/fuzz/ runs for FUZZ_TIME seconds, starting from its inputs
# in tests/fuzz/inputs/HARNESS/ (seeds, and every input that once failed: they run first) and, for
# case files, the starter corpus; tests/fuzz/HARNESS.dict holds the tokens of its grammar. What it finds goes to build-fuzz/found/, out of the tree; a
# failing input is left in build-fuzz/crash-HARNESS-*, to be committed to inputs/ with its fix.
FUZZ_TIME    ?= 45
FUZZ_HARNESS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/*.c))
ifeq ($(FUZZ),1)
$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/libfpdiv.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libfpdiv.a $(LDLIBS)

fuzz-parsers: $(FUZZ_HARNESS:%=$(BUILD)/fuzz/%)
	@for h in $(FUZZ_HARNESS); do \
	    mkdir -p $(BUILD)/found/$$h; \
	    seeds=tests/fuzz/inputs/$$h; [ $$h != case_file ] || seeds="$$seeds corpus"; \
	    echo "fuzz-parsers: $$h for $(FUZZ_TIME) s (log: $(BUILD)/fuzz/$$h.log)"; \
	    if ! $(BUILD)/fuzz/$$h -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	            -dict=tests/fuzz/$$h.dict -artifact_prefix=$(BUILD)/crash-$$h- $(BUILD)/found/$$h $$seeds \
	            >$(BUILD)/fuzz/$$h.log 2>&1; then \
	        tail -n 40 $(BUILD)/fuzz/$$h.log; echo "fuzz-parsers: $$h FAILED"; exit 1; \
	    fi; \
	    grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ +DONE' $(BUILD)/fuzz/$$h.log; \
	done
else
fuzz-parsers:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-parsers
endif

# Every suite always runs; the target fails if any failed. The layout's rules (tests/layout/check.py:
# rooms, include loops) come first. The corpus as committed (tests/committed-corpus.sh: not what a
# user's campaigns have added since) is replayed last: a case that got worse fails the build.
# Under the sanitizers a planted segfault must still kill its worker (the tests check the signal),
# so AddressSanitizer leaves SIGSEGV alone; the zoo's campaigns, the GPU bundle's script and the
# documentation's commands, which exercise no code the other suites leave out, run natively only
# (CI's time: the sanitized suites take about 18 minutes of its 45).
test unit-test cli-test: export ASAN_OPTIONS := $(if $(SANITIZE_FLAGS),handle_segv=0)
# The kernel sets a probe showed this CPU runs are remembered (kernel_set_cache.h): the tests keep
# theirs beside the build, never in the user's ~/.cache, and `make test` starts with none, so that
# its first survey probes every set.
test unit-test cli-test test-pinned doc-test: export FPDIV_CACHE_DIR := $(abspath $(BUILD))/test-cache
test: $(BUILD)/fpdiv $(BUILD)/unit-tests $(BUILD)/cuda-host-tests $(PLUGINS) $(CLASH_LIBS) $(ZOO_LIBS) $(CUDA_PLUGIN) $(FAKE_DRIVER) $(BUILD)/fpdiv.1
	@status=0; rm -rf "$$FPDIV_CACHE_DIR"; \
	tests/suite.sh layout python3 tests/layout/check.py --objects $(BUILD)/obj || status=1; \
	FPDIV=$(BUILD)/fpdiv tests/suite.sh unit tests/unit/run.sh $(BUILD)/unit-tests --jobs 2 || status=1; \
	tests/suite.sh cuda-host $(MAKE) --no-print-directory cuda-host-test || status=1; \
	FPDIV=$(BUILD)/fpdiv tests/suite.sh cli tests/cli/run.sh || status=1; \
	FPDIV=$(BUILD)/fpdiv tests/suite.sh hostile tests/cli/hostile.sh || status=1; \
	FPDIV=$(BUILD)/fpdiv tests/suite.sh report tests/cli/report.sh || status=1; \
	FPDIV=$(BUILD)/fpdiv tests/suite.sh libraries tests/cli/libraries.sh || status=1; \
	FPDIV=$(BUILD)/fpdiv tests/suite.sh judge tests/cli/judge.sh || status=1; \
	$(if $(SANITIZE),,FPDIV=$(BUILD)/fpdiv tests/suite.sh zoo tests/zoo/run.sh || status=1;) \
	FRAMEWORKS_FEW=$(SANITIZE) FPDIV=$(BUILD)/fpdiv tests/suite.sh frameworks tests/cli/frameworks.sh || status=1; \
	$(if $(SANITIZE),,FPDIV=$(BUILD)/fpdiv tests/suite.sh doc-examples python3 tests/doc/examples.py || status=1;) \
	committed=$$(mktemp -d) && \
	tests/suite.sh committed-corpus $(BUILD)/fpdiv replay $$(tests/committed-corpus.sh $$committed/cases) || status=1; \
	rm -rf "$$committed"; \
	FPDIV=$(BUILD)/fpdiv tests/suite.sh gpu tests/gpu/run.sh || status=1; \
	$(if $(SANITIZE),,FPDIV=$(BUILD)/fpdiv tests/suite.sh gpu-bundle tests/gpu/bundle.sh || status=1;) \
	exit $$status

# Every command README.md and doc/ show, run and compared in shape with the page.
doc-test: $(BUILD)/fpdiv $(PLUGINS)
	FPDIV=$(BUILD)/fpdiv python3 tests/doc/examples.py

# What fpdiv needs on a GPU machine that has none of its Debian packages, in one folder
# (scripts/gpu/bundle.sh); scripts/gpu/check.sh runs the GPU side of fpdiv from it, there or here.
gpu-bundle: $(BUILD)/fpdiv $(CUDA_PLUGIN)
	$(Q)scripts/gpu/bundle.sh $(BUILD) $(BUILD)/gpu-bundle

# scripts/gpu/check.sh rehearsed on a stand-in GPU machine (tests/gpu/rehearsal.sh): minutes, so
# not in `make test`; run it before a session spends GPU time.
gpu-rehearsal: $(BUILD)/fpdiv $(CUDA_PLUGIN)
	FPDIV=$(BUILD)/fpdiv tests/gpu/rehearsal.sh

# The GPU suite alone (it skips, saying why, where no GPU is present).
test-gpu: $(BUILD)/fpdiv $(CUDA_PLUGIN)
	FPDIV=$(BUILD)/fpdiv tests/gpu/run.sh

# The unit tests start hosts (src/backends/host.h) with the fpdiv binary beside them, and load test plugins.
# The CLI suite and the corpus replay again with OpenBLAS on two kernel sets it would not pick on this
# CPU (CORES="A B" names them): no test may depend on the one it picks. CI runs it on Sandybridge.
test-pinned: $(BUILD)/fpdiv $(PLUGINS) $(CLASH_LIBS) $(ZOO_LIBS) $(CUDA_PLUGIN) $(FAKE_DRIVER) $(BUILD)/fpdiv.1
	FPDIV=$(BUILD)/fpdiv tests/run-pinned.sh $(CORES)

layout-test: $(BUILD)/fpdiv
	python3 tests/layout/check.py --objects $(BUILD)/obj

# The CUDA kernels on the CPU against their twins, then the planted faults they must catch; then
# the CUDA adapters on the stand-in runtime, where the toolkit's headers are.
cuda-host-test: $(BUILD)/cuda-host-tests $(CUDA_ADAPTER_TESTS)
	$(BUILD)/cuda-host-tests --jobs 2
	BUILD=$(BUILD) tests/gpu/host/mutants.sh
	$(if $(CUDA_ADAPTER_TESTS),$(CUDA_ADAPTER_TESTS) --jobs 2,@echo "cuda-adapter-tests: SKIP: no CUDA toolkit (nvcc) found, whose headers the adapters need")

unit-test: $(BUILD)/unit-tests $(BUILD)/fpdiv $(PLUGINS) $(CLASH_LIBS)
	FPDIV=$(BUILD)/fpdiv tests/unit/run.sh $(BUILD)/unit-tests

cli-test: $(BUILD)/fpdiv $(PLUGINS) $(CLASH_LIBS) $(ZOO_LIBS) $(CUDA_PLUGIN) $(FAKE_DRIVER) $(BUILD)/fpdiv.1
	FPDIV=$(BUILD)/fpdiv tests/cli/run.sh && FPDIV=$(BUILD)/fpdiv tests/cli/hostile.sh && \
	    FPDIV=$(BUILD)/fpdiv tests/cli/report.sh && \
	    FPDIV=$(BUILD)/fpdiv tests/cli/libraries.sh && FPDIV=$(BUILD)/fpdiv tests/cli/judge.sh && \
	    FPDIV=$(BUILD)/fpdiv tests/cli/frameworks.sh

BENCH_SRC := $(wildcard scripts/bench/*.c)
BENCH_BIN := $(BENCH_SRC:scripts/bench/%.c=$(BUILD)/bench/%)

$(BUILD)/bench/%: scripts/bench/%.c scripts/bench/time_best.h scripts/bench/square_operands.h $(BUILD)/libfpdiv.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(shell pkg-config --cflags openblas) -o $@ $< $(BUILD)/libfpdiv.a $(LDLIBS) \
	    $(shell pkg-config --libs openblas)

# Benchmarks: run on an idle machine; each prints what it measured and how. The last counts the
# probabilistic tier's false alarms, which no timing depends on (bench_structured: on structured
# data, with the test plugins' lossy kernels as its true positives). Two compare against what is
# not here, and say "unmeasured" without it: bench_explain against FPRev (FPREV=<its checkout>),
# bench_campaign against an older fpdiv (BASELINE=<its binary>, e.g. f39899d's).
bench: $(BENCH_BIN) $(BUILD)/fpdiv $(PLUGINS) $(ZOO_LIBS)
	@for b in $(BENCH_BIN); do FPDIV=$(BUILD)/fpdiv $$b || exit 1; done
	@FPDIV=$(BUILD)/fpdiv scripts/bench/bench_fuzz.sh
	@FPDIV=$(BUILD)/fpdiv scripts/bench/bench_campaign.py
	@FPDIV=$(BUILD)/fpdiv scripts/bench/bench_libraries.sh
	@BACKENDS="seq tc-v100 tc-a100 tc-ada tc-h100 tc-b200 tc-b200rn" DTYPES=f16,bf16 \
	    FPDIV=$(BUILD)/fpdiv scripts/bench/bench_libraries.sh 10
	@FPDIV=$(BUILD)/fpdiv scripts/bench/bench_bridge.sh
	@FPDIV=$(BUILD)/fpdiv scripts/bench/false_alarms.sh
	@FPDIV=$(BUILD)/fpdiv scripts/bench/bench_zoo.py

# doc/report.md's picture of `fpdiv report`, from a real campaign (scripts/readme/screenshot.sh says which).
readme-screenshot: $(BUILD)/fpdiv
	FPDIV=$(BUILD)/fpdiv scripts/readme/screenshot.sh scripts/readme/report.png

# The man page is the binary's own --help texts, typeset: it is rebuilt whenever they may change.
man: $(BUILD)/fpdiv.1
$(BUILD)/fpdiv.1: $(BUILD)/fpdiv scripts/gen-man.py
	@$(if $(Q),echo "  MAN     $@")
	$(Q)python3 scripts/gen-man.py $(BUILD)/fpdiv >$@.tmp && mv $@.tmp $@

install: $(BUILD)/fpdiv $(CUDA_PLUGIN) $(BUILD)/fpdiv.1
	install -D -m 755 $(BUILD)/fpdiv $(DESTDIR)$(PREFIX)/bin/fpdiv
	install -D -m 644 $(BUILD)/fpdiv.1 $(DESTDIR)$(PREFIX)/share/man/man1/fpdiv.1
	$(if $(CUDA_PLUGIN),install -D -m 755 $(CUDA_PLUGIN) $(DESTDIR)$(LIBDIR)/fpdiv-cuda.so)
	install -D -m 644 include/fpdiv_backend.h $(DESTDIR)$(PREFIX)/include/fpdiv_backend.h
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/fpdiv/bridge scripts/bridge/fpdiv_bridge.py scripts/bridge/fpenv.py
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/fpdiv/bridge/frameworks scripts/bridge/frameworks/*.py

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fpdiv $(DESTDIR)$(LIBDIR)/fpdiv-cuda.so $(DESTDIR)$(PREFIX)/include/fpdiv_backend.h \
	      $(DESTDIR)$(PREFIX)/share/man/man1/fpdiv.1
	rm -rf $(DESTDIR)$(PREFIX)/share/fpdiv/bridge

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
