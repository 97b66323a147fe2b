# bench/: benchmarks. `make bench` prints figures and ratios against a
# reference measured in the same run; it asserts nothing.
BENCH_LSVI := $(O)/bench_lsvi

$(BENCH_LSVI): bench/bench_lsvi.c $(ENGINE_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(ENGINE_LIB) $(DEP_LIBS)

.PHONY: bench-lsvi
bench-lsvi: $(BENCH_LSVI)
	$(BENCH_LSVI) $(BENCH_LSVI_ARGS)

bench: bench-lsvi

BENCH_ENGINE := $(O)/bench_engine

$(BENCH_ENGINE): bench/bench_engine.c $(ENGINE_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(ENGINE_LIB) $(DEP_LIBS)

.PHONY: bench-engine
bench-engine: $(BENCH_ENGINE)
	$(BENCH_ENGINE)

bench: bench-engine
