# client/: libbillboard (static and shared), the billboard CLI, pkg-config
# file and their part of `make install` (install-client).
CLIENT_SRC := client/client.c client/client_request.c client/client_billboard.c \
              client/client_recommend.c client/client_submit.c client/client_episodes.c \
              client/client_info.c client/client_admin.c \
              client/transport.c client/retry.c client/statestore.c
CLIENT_OBJ := $(CLIENT_SRC:%.c=$(O)/%.o)
CLIENT_LIB := $(O)/libbillboard.a
CLIENT_SO_VERSION := 7
CLIENT_SO  := $(O)/libbillboard.so.$(CLIENT_SO_VERSION)
CLIENT_PIC := $(addprefix $(O)/pic/,$(CLIENT_SRC:%.c=%.o) $(PROTO_SRC:%.c=%.o))
CLIENT_PC  := $(O)/billboard.pc
CLI_SRC    := $(wildcard client/cli/*.c)
CLI_OBJ    := $(CLI_SRC:%.c=$(O)/%.o)
BILLBOARD  := $(O)/billboard
# The libraries a program linking libbillboard needs (also in billboard.pc).
CLIENT_DEP_PKGS := jansson libcurl sqlite3 libsodium openblas lapacke

# Public headers client.h pulls in; never the server's.
CLIENT_HEADERS := include/billboard/client.h include/billboard/billboard.h include/billboard/problem.h \
                  include/billboard/codec.h include/billboard/episode.h include/billboard/err.h \
                  include/billboard/clinic.h include/billboard/config_info.h include/billboard/privacy.h

all: $(CLIENT_LIB) $(CLIENT_SO) $(BILLBOARD) $(CLIENT_PC)
UNIT_LIBS += $(CLIENT_LIB)
# The shared library too: tests/integration/43-install.sh installs it.
TEST_DEPS += $(BILLBOARD) $(CLIENT_SO)

# The proto/ objects (codec, policy, linear algebra) go into the library so a
# clinic links one archive.
$(CLIENT_LIB): $(CLIENT_OBJ) $(PROTO_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYER_INC) -fPIC -c $< -o $@

$(CLIENT_SO): $(CLIENT_PIC)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libbillboard.so.$(CLIENT_SO_VERSION) -o $@ $^ \
	    $(shell pkg-config --libs $(CLIENT_DEP_PKGS)) -lpthread -lm
	ln -sf libbillboard.so.$(CLIENT_SO_VERSION) $(O)/libbillboard.so

$(BILLBOARD): $(CLI_OBJ) $(CLIENT_LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(CLIENT_LIB) $(DEP_LIBS)

# libdir and includedir are written relative to ${prefix} when they lie
# under it, so `pkg-config --define-prefix` works on a relocated tree.
CLIENT_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|g' \
	    -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
	    -e 's|@REQUIRES@|$(CLIENT_DEP_PKGS)|g'

$(CLIENT_PC): client/billboard.pc.in client/client.mk
	@mkdir -p $(dir $@)
	$(CLIENT_PC_SED) $< > $@

install-client: $(CLIENT_LIB) $(CLIENT_SO) $(BILLBOARD)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/billboard $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(CLIENT_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(CLIENT_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libbillboard.so.$(CLIENT_SO_VERSION) $(DESTDIR)$(LIBDIR)/libbillboard.so
	install -m 644 $(CLIENT_HEADERS) $(DESTDIR)$(INCLUDEDIR)/billboard/
	$(CLIENT_PC_SED) client/billboard.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/billboard.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/billboard.pc
	install -m 755 $(BILLBOARD) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 644 docs/man/billboard.1 $(DESTDIR)$(MANDIR)/man1/
