# tests/load/: `make load`, billboardd under load on loopback (run.sh), with
# its own load generator (loadgen.c: closed loop, open loop without
# coordinated omission, slow clients). Not part of make test, which only
# runs the tool for a few seconds (tests/integration/36-load-smoke.sh).
LOADGEN := $(O)/loadgen
.PHONY: load
$(LOADGEN): tests/load/loadgen.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g $(WARN) -o $@ $<
TEST_DEPS += $(LOADGEN)
load: $(LOADGEN) $(BILLBOARDD)
	O=$(O) tests/load/run.sh
