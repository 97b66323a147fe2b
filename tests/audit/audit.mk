# tests/audit/: the empirical privacy audit (docs/PRIVACY.md §6).
#
#   make audit        every case on the real engine, then the mutation table:
#                     the engine rebuilt with each deliberate privacy bug of
#                     proto/mutation.h (build-mut/NAME/), which the audit must
#                     catch; AUDIT_TRIALS=N trials a side (default 100000)
#   make test         runs tests/audit/quick.sh: two cases on the real
#                     engine, and the sigma-halved mutation, which must fail
AUDIT_SRC := $(wildcard tests/audit/*.c)
AUDIT_OBJ := $(AUDIT_SRC:%.c=$(O)/%.o)
BB_AUDIT  := $(O)/bb-audit
$(O)/tests/audit/%.o: LAYER_INC := $(PROTO_INC) -I$(INC_ROOT)

$(BB_AUDIT): $(AUDIT_OBJ) $(ENGINE_LIB)
	$(CC) $(LDFLAGS) -o $@ $(AUDIT_OBJ) $(ENGINE_LIB) $(DEP_LIBS)

# The audit program alone, for the mutation builds (make MUTATION=X audit-bin).
.PHONY: audit audit-bin
audit-bin: $(BB_AUDIT)

AUDIT_TRIALS ?= 100000
audit: $(BB_AUDIT) $(BILLBOARDD)
	@O=$(O) AUDIT_TRIALS=$(AUDIT_TRIALS) MAKE="$(MAKE)" tests/audit/full.sh

TEST_DEPS += $(BB_AUDIT)
