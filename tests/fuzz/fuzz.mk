# tests/fuzz/: libFuzzer harnesses (clang, ASan, UBSan), one per input the
# service decodes; their seed corpora in tests/fuzz/corpus/<harness>/.
#
#   make fuzz [FUZZ_SECONDS=N]   each harness N seconds (default 60), new
#                                inputs kept under build-fuzz/corpus/
#   make test                    each harness ~10 s (tests/integration/
#                                35-fuzz-smoke.sh), one counted test
#
# The harnesses and everything they link are built by `make FUZZ=1` into
# build-fuzz/ (the Makefile's switch: CC=clang, sanitizer coverage).
FUZZ_HARNESSES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS   ?= 60
.PHONY: fuzz fuzz-build fuzz-bins

ifneq ($(FUZZ),)
FUZZ_BIN := $(FUZZ_HARNESSES:%=$(O)/fuzz/%)
fuzz-bins: $(FUZZ_BIN)
$(O)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(DAEMON_LIB) $(SIM_LIB) $(ENGINE_LIB) | $(INC_ROOT)/engine
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TEST_INC) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(DAEMON_LIB) $(SIM_LIB) \
	    $(ENGINE_LIB) $(DAEMON_DEP_LIBS) $(DEP_LIBS)
else
fuzz-build:
	@$(MAKE) --no-print-directory FUZZ=1 SANITIZER= fuzz-bins
fuzz: fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS) build-fuzz
TEST_DEPS += fuzz-build
endif
