# billboard — top-level build.
#
#   make                 build libraries, billboardd, tools
#   make test            build and run every test (make lint's checks too);
#                        ends with "N passed, N failed"
#   make lint            Spectral on proto/openapi.yaml, shellcheck on every
#                        shell script, no banned C functions (tests/lint/)
#   make SANITIZER=address,undefined test
#   make bench           benchmarks (print figures and ratios, assert nothing)
#   make run             the main job (see README)
#   make install         the client side and the host's (DESTDIR=, PREFIX=)
#   make tidy            clang-tidy over the sources
#   make docker-test     the compose stack in Docker (tests/integration/90-docker.sh;
#                        also part of make test, skipped there without an engine)
#
# Every part lives in its own fragment (server/server.mk, client/client.mk, ...),
# included below, so each folder owns its build rules.

CC       ?= cc
O        := build
PKGS     := jansson libmicrohttpd sqlite3 libsodium libcurl openblas lapacke
DEP_CFLAGS := $(shell pkg-config --cflags $(PKGS))
DEP_LIBS   := $(shell pkg-config --libs $(PKGS)) -lpthread -lm
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
OPT     ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -fopenmp-simd $(WARN) $(DEP_CFLAGS) -MMD -MP
LDFLAGS +=
# make MUTATION=NAME builds with one deliberate privacy bug of
# proto/mutation.h compiled in, into its own folder: only the privacy
# audit's mutation table (tests/audit/) uses it.
ifneq ($(MUTATION),)
CFLAGS  += -DBB_MUTATION=BB_MUT_$(MUTATION)
O       := build-mut/$(MUTATION)
endif
ifneq ($(SANITIZER),)
CFLAGS  += -fsanitize=$(SANITIZER) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZER)
O       := build-san
endif

.PHONY: all test unit-test integration-test bench run tidy clean install check-layers lint \
        install-client install-host docker-test
all: check-layers

# Where `make install` puts things (under $(DESTDIR)): the client side
# (client/client.mk: library, headers, pkg-config file, CLI) and the host's
# (deploy/deploy.mk: billboardd, its systemd unit, the example
# configuration, the documentation).
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DOCDIR     ?= $(PREFIX)/share/doc/billboard
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
MANDIR     ?= $(PREFIX)/share/man
install: install-client install-host

# Layers, each with its own include path, so a header a layer must not use
# is not found (tests/check-layers.sh also checks the #include lines):
#   include/billboard   public API            proto      shared by both sides
#   server/engine       the algorithm         server     the daemon (HTTP, SQLite)
#   client              libbillboard, CLI     client/sim the simulator
# The engine's headers are included by path ("engine/engine.h") through
# $(O)/inc, which holds only a link to server/engine: a program that may use
# the engine gets it without reaching the daemon's headers.
INC_ROOT     := $(O)/inc
PROTO_INC    := -Iinclude -Iproto
$(O)/proto/%.o $(O)/pic/proto/%.o:   LAYER_INC := $(PROTO_INC)
$(O)/server/engine/%.o:              LAYER_INC := $(PROTO_INC)
$(O)/server/%.o:                     LAYER_INC := $(PROTO_INC) -I$(INC_ROOT)
$(O)/client/%.o $(O)/pic/client/%.o: LAYER_INC := $(PROTO_INC)
$(O)/client/sim/%.o:                 LAYER_INC := $(PROTO_INC) -I$(INC_ROOT)
$(O)/bench/%.o:                      LAYER_INC := $(PROTO_INC) -I$(INC_ROOT)
TEST_INC     := $(PROTO_INC) -I$(INC_ROOT) -Iserver -Iclient

$(INC_ROOT)/engine:
	@mkdir -p $(INC_ROOT)
	ln -sfn $(CURDIR)/server/engine $@

check-layers:
	@tests/check-layers.sh

# The main job: billboardd on ./var/billboard.db and simulated clinics
# against it over HTTP (deploy/run-demo); serves until Ctrl-C.
run:
	O=$(O) ./deploy/run-demo

# The compose stack for real (docker/): builds the image, runs the stack,
# kills it, scans it. Needs root or a Docker engine; a few minutes, the
# first run longer (debootstrap). Here "cannot run" is a failure.
docker-test:
	BILLBOARD_DOCKER_TEST=required bash tests/integration/90-docker.sh

include proto/proto.mk
include server/server.mk
-include client/client.mk
-include client/sim/sim.mk
-include bench/bench.mk
include deploy/deploy.mk
include tests/audit/audit.mk
include tests/tests.mk

# Quiet by default; `make V=1` shows the full command lines.
ifeq ($(V),1)
Q :=
else
Q := @
endif

$(O)/%.o: %.c | $(INC_ROOT)/engine
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(LAYER_INC) -c $< -o $@

# The checks that need no build: each tests/lint/*.sh, all run, any failure
# fails (make test runs them too, counted in its summary).
lint:
	@rc=0; for t in tests/lint/*.sh; do O=$(O) bash "$$t" || { echo "lint FAILED: $$t"; rc=1; }; done; exit $$rc

tidy:
	clang-tidy $(wildcard proto/*.c server/*.c server/engine/*.c client/*.c) -- $(CFLAGS) $(TEST_INC)

clean:
	rm -rf build build-san build-mut

-include $(shell find $(O) -name '*.d' 2>/dev/null)
