# server/engine/: the curator engine (libbbengine.a), usable without the daemon.
# server/: the daemon billboardd around it.

# GET /v1/openapi.json serves proto/openapi.yaml, converted to JSON and
# embedded at build time (server/openapi.h). PyYAML comes from Debian's
# python3-yaml (deploy/install-deps); any python3 on PATH that has it will do.
OPENAPI_C   := $(O)/gen/server/openapi_json.c
OPENAPI_OBJ := $(OPENAPI_C:.c=.o)
YAML_PYTHON = $(firstword $(foreach p,python3 /usr/bin/python3,\
                 $(shell $(p) -c 'import yaml' 2>/dev/null && echo $(p))))

$(OPENAPI_C): proto/openapi.yaml server/openapi_embed.py
	@mkdir -p $(dir $@)
	@test -n "$(YAML_PYTHON)" || { echo "no python3 with PyYAML: run deploy/install-deps (python3-yaml)" >&2; exit 1; }
	$(YAML_PYTHON) server/openapi_embed.py proto/openapi.yaml $@

$(OPENAPI_OBJ): $(OPENAPI_C)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -Iserver -c $< -o $@

# GET / serves server/status.html, embedded the same way.
STATUS_C   := $(O)/gen/server/status_html.c
STATUS_OBJ := $(STATUS_C:.c=.o)
$(STATUS_C): server/status.html server/embed_bytes.py
	@mkdir -p $(dir $@)
	python3 server/embed_bytes.py server/status.html $@ bb_status_html
$(STATUS_OBJ): $(STATUS_C)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

ENGINE_SRC := $(wildcard server/engine/*.c)
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(O)/%.o) $(PROTO_OBJ)
ENGINE_LIB := $(O)/libbbengine.a
DAEMON_SRC := $(wildcard server/*.c)
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(O)/%.o) $(OPENAPI_OBJ) $(STATUS_OBJ)
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
