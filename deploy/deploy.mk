# deploy/: the host's part of `make install` (install-host): billboardd, its
# systemd unit with the paths of PREFIX, the example configuration and the
# documentation. The directories are set in the top Makefile.
#
#   $(BINDIR)/billboardd
#   $(SYSTEMDUNITDIR)/billboardd.service     $(PREFIX)/lib/systemd/system: on
#                                            systemd's unit path for /usr and
#                                            /usr/local alike
#   $(DOCDIR)/README.md, docs/, proto/openapi.yaml   as in the tree, so the
#                                            links between them hold
#   $(DOCDIR)/examples/billboardd.conf
#
# Nothing goes to $(SYSCONFDIR): the configuration is fixed in the database
# on its first start, so copying the example to /etc/billboard and editing
# it is the operator's deliberate step (docs/DAEMON.md).
UNIT_SED = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
	    -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'

install-host: $(BILLBOARDD)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(DOCDIR)/docs/img \
	    $(DESTDIR)$(DOCDIR)/proto $(DESTDIR)$(DOCDIR)/examples
	install -m 755 $(BILLBOARDD) $(DESTDIR)$(BINDIR)/
	$(UNIT_SED) deploy/billboardd.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/billboardd.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/billboardd.service
	install -m 644 deploy/billboardd.conf $(DESTDIR)$(DOCDIR)/examples/
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	install -m 644 docs/img/*.png $(DESTDIR)$(DOCDIR)/docs/img/
	install -m 644 proto/openapi.yaml $(DESTDIR)$(DOCDIR)/proto/
	install -d $(DESTDIR)$(DOCDIR)/deploy $(DESTDIR)$(MANDIR)/man8
	install -m 644 deploy/billboard-alerts.yml $(DESTDIR)$(DOCDIR)/deploy/
	install -m 644 docs/man/billboardd.8 $(DESTDIR)$(MANDIR)/man8/
