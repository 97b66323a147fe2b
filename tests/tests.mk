# tests/: unit tests (cmocka, one binary per module) and integration scripts.
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

$(O)/tests/%: tests/unit/%.c $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) $(LDFLAGS) -o $@ $< $(ENGINE_LIB) $(CMOCKA_LIBS) $(DEP_LIBS)

# Programs the integration tests need, from every fragment.
TEST_DEPS += $(BILLBOARDD)

test: $(UNIT_BIN) $(TEST_DEPS)
	@O=$(O) tests/run $(UNIT_BIN)
