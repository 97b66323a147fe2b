# proto/: the policy function and linear algebra both sides share, the JSON codec.
PROTO_SRC := $(wildcard proto/*.c)
PROTO_OBJ := $(PROTO_SRC:%.c=$(O)/%.o)

# The build's version (proto/version.h): git's description of the checkout
# when there is one, else the VERSION file. version.o is rebuilt when it
# changes, through a stamp rewritten only then.
BB_VERSION := $(shell git describe --always --dirty 2>/dev/null || cat VERSION 2>/dev/null || echo unknown)
$(O)/version.stamp: FORCE
	@mkdir -p $(O)
	@echo '$(BB_VERSION)' | cmp -s - $@ || echo '$(BB_VERSION)' >$@
$(O)/proto/version.o $(O)/pic/proto/version.o: $(O)/version.stamp
$(O)/proto/version.o $(O)/pic/proto/version.o: CFLAGS += -DBB_VERSION='"$(BB_VERSION)"'
.PHONY: FORCE
FORCE:
