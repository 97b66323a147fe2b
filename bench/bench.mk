# bench/: benchmarks. `make bench` prints figures and ratios against a
# reference measured in the same run; it asserts nothing.
BENCH_LSVI := $(O)/bench_lsvi

$(BENCH_LSVI): bench/bench_lsvi.c $(ENGINE_LIB) | $(INC_ROOT)/engine
	$(CC) $(CFLAGS) $(PROTO_INC) -I$(INC_ROOT) $(LDFLAGS) -o $@ $< $(ENGINE_LIB) $(DEP_LIBS)

.PHONY: bench-lsvi
bench-lsvi: $(BENCH_LSVI)
	$(BENCH_LSVI) $(BENCH_LSVI_ARGS)

bench: bench-lsvi

BENCH_ENGINE := $(O)/bench_engine

$(BENCH_ENGINE): bench/bench_engine.c $(ENGINE_LIB) | $(INC_ROOT)/engine
	$(CC) $(CFLAGS) $(PROTO_INC) -I$(INC_ROOT) $(LDFLAGS) -o $@ $< $(ENGINE_LIB) $(DEP_LIBS)

.PHONY: bench-engine
bench-engine: $(BENCH_ENGINE)
	$(BENCH_ENGINE)

bench: bench-engine

# billboardd over HTTP (bench/bench_http.sh): GET and durable POST beside
# a minimal libmicrohttpd server and a plain SQLite loop.
BENCH_MHD_STATIC := $(O)/bench_mhd_static
BENCH_SQLITE_LOOP := $(O)/bench_sqlite_loop

$(BENCH_MHD_STATIC): bench/bench_mhd_static.c | $(INC_ROOT)/engine
	$(CC) $(CFLAGS) $(PROTO_INC) -I$(INC_ROOT) $(LDFLAGS) -o $@ $< $(DEP_LIBS)

$(BENCH_SQLITE_LOOP): bench/bench_sqlite_loop.c | $(INC_ROOT)/engine
	$(CC) $(CFLAGS) $(PROTO_INC) -I$(INC_ROOT) $(LDFLAGS) -o $@ $< $(DEP_LIBS)

.PHONY: bench-http
bench-http: $(BILLBOARDD) $(BENCH_MHD_STATIC) $(BENCH_SQLITE_LOOP)
	O=$(O) bench/bench_http.sh

bench: bench-http
