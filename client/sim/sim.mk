# client/sim/: the simulator billboard-sim (issue 4). Its library
# libbbsim.a (environments, exact evaluation, runs, reports) is also what the
# unit tests tests/unit/test_sim_*.c link.
SIM_SRC := client/sim/env.c client/sim/env_make.c client/sim/env_load.c client/sim/eval.c \
           client/sim/policy.c client/sim/run.c client/sim/solo.c client/sim/report.c client/sim/sweep.c
SIM_OBJ := $(SIM_SRC:%.c=$(O)/%.o)
SIM_LIB := $(O)/libbbsim.a
SIM     := $(O)/billboard-sim

all: $(SIM)
UNIT_LIBS += $(SIM_LIB)
TEST_DEPS += $(SIM)

$(SIM_LIB): $(SIM_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The HTTP runner needs libbillboard; it stays out of libbbsim.a so unit
# tests link without it.
SIM_MAIN_OBJ := $(O)/client/sim/main.o $(O)/client/sim/http.o
$(SIM): $(SIM_MAIN_OBJ) $(SIM_LIB) $(CLIENT_LIB) $(ENGINE_LIB)
	$(CC) $(LDFLAGS) -o $@ $(SIM_MAIN_OBJ) $(SIM_LIB) $(CLIENT_LIB) $(ENGINE_LIB) $(DEP_LIBS)

.PHONY: results price table
# docs/RESULTS.md's price-of-privacy section: ~15 min on 2 cores at K = 1e5
# (client/sim/price.sh; TUNE=1 also reruns the tuning sweep).
price: $(SIM) $(BILLBOARDD)
	O=$(O) client/sim/price.sh

# docs/RESULTS.md's opening table (issue 29): every family, eps 1/3/10, mean,
# worst seed, non-private and ten clinics alone, and the break-even number of
# clinics (client/sim/table.sh; K=20000 SEEDS=1-2 for a quick look).
table: $(SIM)
	O=$(O) client/sim/table.sh

# docs/RESULTS.md's tables and plots: ~20 min on 2 shared cores at K_max = 1e5
# (KMAX=10000 for a quick pass, REUSE=1 to re-render; see client/sim/results.sh).
results: $(SIM) $(BILLBOARDD)
	O=$(O) client/sim/results.sh
