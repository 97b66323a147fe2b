# server/engine/: the curator engine (libbbengine.a), usable without the daemon.
# server/: the daemon billboardd around it.
ENGINE_SRC := $(wildcard server/engine/*.c)
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(O)/%.o) $(PROTO_OBJ)
ENGINE_LIB := $(O)/libbbengine.a
DAEMON_SRC := $(wildcard server/*.c)
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(O)/%.o)
BILLBOARDD := $(O)/billboardd
# GnuTLS is the daemon's alone: tls.c loads the certificate it hands
# libmicrohttpd (which does the TLS with the same GnuTLS).
DAEMON_DEP_CFLAGS := $(shell pkg-config --cflags gnutls)
DAEMON_DEP_LIBS   := $(shell pkg-config --libs gnutls)
$(O)/server/tls.o: CFLAGS += $(DAEMON_DEP_CFLAGS)

all: $(ENGINE_LIB) $(BILLBOARDD)

$(ENGINE_LIB): $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BILLBOARDD): $(DAEMON_OBJ) $(ENGINE_LIB)
	$(CC) $(LDFLAGS) -o $@ $(DAEMON_OBJ) $(ENGINE_LIB) $(DAEMON_DEP_LIBS) $(DEP_LIBS)

# The daemon's modules without main(), so unit tests can link them.
DAEMON_LIB := $(O)/libbbdaemon.a
$(DAEMON_LIB): $(filter-out $(O)/server/billboardd.o,$(DAEMON_OBJ))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
UNIT_LIBS += $(DAEMON_LIB)
UNIT_DEP_LIBS += $(DAEMON_DEP_LIBS)
