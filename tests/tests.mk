# tests/: unit tests (cmocka, one binary per module) and integration scripts.
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

# Libraries a unit test may use; fragments add theirs (client, sim) before
# this file is included, so the engine comes last on the link line.
UNIT_LIBS += $(ENGINE_LIB)

$(O)/tests/%: tests/unit/%.c $(UNIT_LIBS) | $(INC_ROOT)/engine
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TEST_INC) $(CMOCKA_CFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_LIBS) $(CMOCKA_LIBS) $(UNIT_DEP_LIBS) $(DEP_LIBS)

# test_abi checks the public structs against the soname they ship under.
$(O)/tests/test_abi: CFLAGS += -DBB_CLIENT_SO_VERSION=$(CLIENT_SO_VERSION)
$(O)/tests/test_abi: client/client.mk

# Programs the integration tests need, from every fragment.
TEST_DEPS += $(BILLBOARDD)

# The daemon with its fault points compiled in (proto/fault.h), in its own
# folder, for 32-fault-points.sh.
ifeq ($(FAULTS),)
TEST_DEPS += fault-build
.PHONY: fault-build
fault-build:
	@$(MAKE) --no-print-directory FAULTS=1 SANITIZER= build-fault/billboardd
endif

test: $(UNIT_BIN) $(TEST_DEPS)
	@O=$(O) tests/run $(UNIT_BIN)
