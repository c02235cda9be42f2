# Makefile - build ebpfjail: BPF objects -> skeleton -> program, and its tests
#
#   make            build/ebpfjail
#   make check      first scripts/deps.sh --check (a missing program fails at
#                   once, naming its package), then unit tests (Criterion),
#                   make fuzz, integration tests (with Debian 12's pasta and
#                   with a current one)
#   make check-fresh  `scripts/deps.sh && make check` in a fresh minimal
#                   Debian 12 root (mmdebstrap; root; not part of check):
#                   proves a new machine passes; prints the result and time
#   make stress     the relays' stress test at full length (1000 sessions;
#                   not part of check)
#   make fuzz       every fuzz target, reproducibly: its seeds and past crash
#                   inputs, then FUZZ_RUNS=30000 mutations with FUZZ_SEED=1
#   make fuzz-long  every fuzz target for FUZZ_SECONDS=600 with a random
#                   seed (not part of check; says where a crash input went)
#   make demo       ebpfjail run with a demo agent in a simulated network (root)
#   make bench      every benchmark, a table and JSON (root; not part of check;
#                   BENCH_JSON=FILE writes the JSON there): each row from 5
#                   to 15 or 41 interleaved rounds, bench/run.sh says how
#   make install    the program, its man pages, bash completion, the example
#                   config (never over an existing one) and the audit log
#                   directory; PREFIX=/usr/local, DESTDIR for staging.
#                   make uninstall removes them again (not the config).
#   make V=1        show full commands
#
# Everything generated lives under build/. Layout follows libbpf-bootstrap:
# each bpf/*.bpf.c is compiled alone, `bpftool gen object` links them into one
# object (maps declared __weak are merged), `bpftool gen skeleton` turns that
# into build/ebpfjail.skel.h, which only user/engine/bpf/loader.c includes.

.DELETE_ON_ERROR:
.SUFFIXES:
# bash with pipefail: a recipe that pipes (the benchmark smoke run through
# sed) fails when any part of the pipe fails, not only the last.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

VERSION := 0.1.0
OUT := build

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
FUZZ_RUNS ?= 30000
FUZZ_SEED ?= 1
FUZZ_SECONDS ?= 600

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')

# The libraries, from pkg-config, each with the Debian package that has its
# .pc file: a missing one stops the build, by name (no guessed -l flags
# that fail later, or link what happens to be there).
PKGS := libbpf:libbpf-dev libelf:libelf-dev zlib:zlib1g-dev libmnl:libmnl-dev libpsl:libpsl-dev \
	libseccomp:libseccomp-dev libnftables:libnftables-dev libnftnl:libnftnl-dev libsystemd:libsystemd-dev
pkg_name = $(firstword $(subst :, ,$(1)))
pkg_deb = $(lastword $(subst :, ,$(1)))
ifeq ($(filter clean,$(MAKECMDGOALS)),)
MISSING_PKGS := $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(call pkg_name,$(p)) && echo y),,$(p))))
ifneq ($(MISSING_PKGS),)
$(error $(PKG_CONFIG) finds no $(foreach p,$(MISSING_PKGS),$(call pkg_name,$(p)) [apt-get install $(call pkg_deb,$(p))]); run scripts/deps.sh)
endif
endif
PKG_NAMES := $(foreach p,$(PKGS),$(call pkg_name,$(p)))
LIBBPF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libbpf)
LIBBPF_LIBS := $(shell $(PKG_CONFIG) --libs $(PKG_NAMES))

# user/ is one folder per mechanism (README.md, "Layout"); every folder is
# on the include path, so a header is named by its file alone.
USER_SRCS := $(wildcard user/*.c user/*/*.c user/*/*/*.c)
USER_HDRS := $(wildcard user/*.h user/*/*.h user/*/*/*.h)
USER_INCLUDES := $(addprefix -I,$(sort $(patsubst %/,%,$(dir $(USER_SRCS) $(USER_HDRS)))))

WARN := -Wall -Wextra -Werror
# -O2 -g always; CFLAGS, CPPFLAGS and LDFLAGS from the command line or the
# environment come after them (`make CFLAGS+=-fsanitize=address` keeps -O2).
# -MMD -MP: each object's header dependencies, from the compiler.
OPT := -O2 -g
USER_WARN := $(WARN) -Wcast-qual -Wmissing-prototypes
USER_CFLAGS := -std=gnu11 $(USER_WARN) -D_GNU_SOURCE -DEBPFJAIL_VERSION='"$(VERSION)"' \
	$(USER_INCLUDES) -Ibpf -I$(OUT) $(LIBBPF_CFLAGS) -MMD -MP $(OPT) $(CPPFLAGS) $(CFLAGS)
LINK_FLAGS := $(OPT) $(CFLAGS) $(LDFLAGS)
# Only -idirafter for the system includes, so vmlinux.h wins over <linux/*.h>.
# No CO-RE: every type sock.bpf.c and tc.bpf.c read is UAPI (the contexts,
# which the verifier rewrites) or wire format (Ethernet, IP headers), and
# what unix.bpf.c reads of the kernel's own structs and the kfuncs it calls
# are ids and offsets the loader reads from the kernel's BTF itself
# (user/engine/bpf/kbtf.c): libbpf would parse all of it (5.5 MB on 6.18;
# 11 MB of memory, 45 ms of page faults on a paravirtualized guest).
# The system includes are the ones clang itself reports (libbpf-bootstrap's
# CLANG_BPF_SYS_INCLUDES): -target bpf searches no host directory of its own.
CLANG_BPF_SYS_INCLUDES ?= $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -DBPF_NO_PRESERVE_ACCESS_INDEX $(WARN) \
	-Ivmlinux -Ibpf $(CLANG_BPF_SYS_INCLUDES)

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_HDRS := $(wildcard bpf/*.h)

USER_OBJS := $(patsubst user/%.c,$(OUT)/user/%.o,$(USER_SRCS))
# Everything but main(): linked into the unit test binary as well.
LIB_OBJS := $(filter-out $(OUT)/user/main.o,$(USER_OBJS))

UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(patsubst tests/unit/%.c,$(OUT)/tests/unit/%.o,$(UNIT_SRCS))

.PHONY: profiles all check check-fresh unit integration check-containers check-package check-apparmor check-trixie check-trixie-build stress fuzz fuzz-long fuzz-build bench bench-smoke demo clean man install uninstall
all: $(OUT)/ebpfjail man profiles

# The profiles beside the binary, where it looks first (cli_profile_path()).
PROFILE_SRCS := $(wildcard profiles/*.conf)
PROFILES := $(patsubst profiles/%,$(OUT)/profiles/%,$(PROFILE_SRCS))
profiles: $(PROFILES)
$(OUT)/profiles/%.conf: profiles/%.conf
	$(Q)install -D -m 0644 $< $@

$(OUT) $(OUT)/bpf $(OUT)/user $(OUT)/tests/unit $(OUT)/fuzz:
	$(Q)mkdir -p $@

# --- BPF -> linked object -> skeleton --------------------------------------
$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) vmlinux/vmlinux.h | $(OUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/ebpfjail.bpf.o: $(BPF_OBJS) | $(OUT)
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $(BPF_OBJS)

$(OUT)/ebpfjail.skel.h: $(OUT)/ebpfjail.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name ebpfjail > $@

# --- user space -------------------------------------------------------------
$(OUT)/user/%.o: user/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(OUT)/user/engine/bpf/loader.o: $(OUT)/ebpfjail.skel.h $(OUT)/attach_types.h

# The attach types <linux/bpf.h> may lack, from a compile probe.
$(OUT)/attach_types.h: scripts/attach-types.sh vmlinux/vmlinux.h | $(OUT)
	$(call msg,GEN,$@)
	$(Q)scripts/attach-types.sh "$(CC)" "$(CLANG)" >$@

$(OUT)/ebpfjail: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LINK_FLAGS) $^ $(LIBBPF_LIBS) -o $@

# --- tests ------------------------------------------------------------------
$(OUT)/tests/unit/%.o: tests/unit/%.c | $(OUT)/tests/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(USER_CFLAGS) -Itests/unit -c $< -o $@

$(OUT)/unit-tests: $(UNIT_OBJS) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LINK_FLAGS) $^ -lcriterion $(LIBBPF_LIBS) -o $@

# libFuzzer targets. Each is tests/fuzz/fuzz_NAME.c and the sources it
# needs (FUZZ_SRCS_NAME), built by clang with ASan and UBSan, with a seed
# corpus in tests/fuzz/seeds/NAME/ and every input that ever crashed it in
# tests/fuzz/crashes/NAME/; FUZZ_SEEDS_NAME adds seed files kept elsewhere,
# FUZZ_FLAGS_NAME its own libFuzzer flags. $(call fuzz_target,NAME) makes
# fuzz-NAME (part of make fuzz) and fuzz-long-NAME (of make fuzz-long);
# tests/fuzz/run.sh says what each runs.
FUZZ_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE $(USER_INCLUDES) -Ibpf -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS :=

define fuzz_target
FUZZ_TARGETS += $(1)
$$(OUT)/fuzz/fuzz-$(1): tests/fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) $$(USER_HDRS) $$(BPF_HDRS) | $$(OUT)/fuzz
	$$(call msg,FUZZ-CC,$$@)
	$$(Q)$$(CLANG) $$(FUZZ_CFLAGS) $$(filter %.c,$$^) -o $$@
fuzz-$(1): $$(OUT)/fuzz/fuzz-$(1)
	$$(Q)V=$$(V) FUZZ_RUNS=$$(FUZZ_RUNS) FUZZ_SEED=$$(FUZZ_SEED) FUZZ_FLAGS="$$(FUZZ_FLAGS_$(1))" \
		tests/fuzz/run.sh check $(1) $$< $$(FUZZ_SEEDS_$(1))
fuzz-long-$(1): $$(OUT)/fuzz/fuzz-$(1)
	$$(Q)V=$$(V) FUZZ_SECONDS=$$(FUZZ_SECONDS) FUZZ_FLAGS="$$(FUZZ_FLAGS_$(1))" \
		tests/fuzz/run.sh long $(1) $$< $$(FUZZ_SEEDS_$(1))
.PHONY: fuzz-$(1) fuzz-long-$(1)
endef

# The configuration parser. -max_len: a file as long as one line may be (a
# longer line is the unit test config/one_mib_line).
FUZZ_SRCS_config := user/policy/config.c user/policy/netaddr.c user/policy/builtin.c \
	user/policy/unixpolicy.c
FUZZ_SEEDS_config := etc/ebpfjail.conf
FUZZ_FLAGS_config := -max_len=4096
$(eval $(call fuzz_target,config))

# The DNS messages the forwarder reads (queries from the agent, answers
# from the resolver or whoever spoofs one). -max_len: a TCP message's
# length field allows 65535; what matters fits a UDP datagram.
FUZZ_SRCS_dnsmsg := user/policy/dnsmsg.c
FUZZ_FLAGS_dnsmsg := -max_len=1500
$(eval $(call fuzz_target,dnsmsg))

fuzz-build: $(patsubst %,$(OUT)/fuzz/fuzz-%,$(FUZZ_TARGETS))
fuzz: $(addprefix fuzz-,$(FUZZ_TARGETS))
fuzz-long: $(addprefix fuzz-long-,$(FUZZ_TARGETS))

# Benchmarks: not part of `make check` (timing on shared machines is noise).
$(OUT)/bench/bench-connect: bench/bench_connect.c bench/benchutil.c $(LIB_OBJS) | $(OUT)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(OUT)/bench
	$(Q)$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) -o $@

$(OUT)/bench/bench-nft: bench/bench_nft.c bench/benchutil.c tests/unit/rootlessns.c $(LIB_OBJS) | $(OUT)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(OUT)/bench
	$(Q)$(CC) $(USER_CFLAGS) -Itests/unit $(LDFLAGS) $^ $(LIBBPF_LIBS) -o $@

# The tap row's switch (bench/jail.sh): a classifier of its own, not linked
# into the jail's object.
$(OUT)/bench/tapswitch.bpf.o: bench/tapswitch.bpf.c vmlinux/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(OUT)/bench
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

BENCH_BINS := $(OUT)/bench/bench-connect $(OUT)/bench/bench-nft $(OUT)/bench/tapswitch.bpf.o \
	$(OUT)/ebpfjail $(OUT)/probe

bench: $(BENCH_BINS)
	$(Q)scripts/deps.sh --check
	$(Q)bench/run.sh $(if $(BENCH_JSON),--json $(BENCH_JSON))

unit: $(OUT)/unit-tests
	$(Q)tests/unit/run.sh $(OUT)/unit-tests

# The suites' own clients and servers, one C file each.
$(OUT)/probe $(OUT)/relaystress: $(OUT)/%: tests/integration/%.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 $(WARN) -D_GNU_SOURCE $(OPT) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@

# The suite once with each pasta: Debian 12's, found on PATH, and the
# current release, built from Debian 13's source (cached; see the script).
# PASTA_DIRS=system runs it with the pasta on PATH only.
# The suite's runs (root and rootless, each pasta) side by side, 3 at a
# time (tests/integration/run.sh says how): they mostly wait, and the
# rootless runs never overlap.
INTEGRATION_JOBS ?= 3
integration: $(OUT)/ebpfjail $(PROFILES) $(OUT)/probe $(OUT)/relaystress man
	$(Q)dirs="$(PASTA_DIRS)"; \
	if [ -z "$$dirs" ]; then current=$$(scripts/build-pasta.sh) || exit 1; dirs="system $$current"; fi; \
	PASTA_DIRS="$$dirs" IT_JOBS=$(INTEGRATION_JOBS) tests/integration/run.sh $(OUT)/ebpfjail

# The relays' stress test at full length: 1000 sessions each way (iperf3's
# pattern, checksummed, with half-closes and resets) and 20 iperf3 runs,
# beside stress-ng --cpu 2, with each pasta. Not part of check (which runs
# it with 100 sessions); run it before changing user/net/relay.c.
stress: $(OUT)/ebpfjail $(OUT)/probe $(OUT)/relaystress
	$(Q)current=$$(scripts/build-pasta.sh) || exit 1; \
	RELAY_STRESS_SESSIONS=1000 RELAY_STRESS_IPERF=20 PASSES="root rootless" PASTA_DIRS="system $$current" \
		tests/integration/run.sh $(OUT)/ebpfjail test_iperf3_pattern_through_both_relays_under_load

# The AppArmor profile compiles (AppArmor 4's parser: the userns rule;
# make check-trixie-build runs it in a Debian 13 root).
check-apparmor:
	$(Q)apparmor_parser -Q -K -T etc/apparmor.d/ebpfjail && echo "apparmor: etc/apparmor.d/ebpfjail compiles ($$(apparmor_parser --version | head -n 1))"

# Debian 13: the build and the unit tests with its toolchain (clang,
# libbpf, gcc) and the AppArmor profile with its parser, in a fresh root
# (make check runs this); and with the integration suite there, its pasta
# and kernel-facing tools (before a release, not in CI: it takes as long
# again). Not the container suite: it drives Debian 12's Podman 4.3 and
# Docker 20.10 (Debian 13's Podman 5 wants nft and pasta of its own) and
# builds images whose libc the binary's build host must not outrun; the
# README's image on a Debian 13 base is tested there, from Debian 12.
check-trixie-build:
	$(Q)FRESH_SUITE=trixie FRESH_DEPS="--section build --section the-unit-tests --section the-AppArmor" \
		FRESH_CMD="make all unit check-apparmor" scripts/check-fresh.sh
check-trixie:
	$(Q)FRESH_SUITE=trixie FRESH_CMD="make all unit fuzz bench-smoke check-apparmor integration" \
		scripts/check-fresh.sh

# The Debian package: built, lintian, installed into a fresh Debian 12 root
# and removed again (tests/package/run.sh says how).
check-package:
	$(Q)tests/package/run.sh

# ebpfjail-entrypoint under real Podman and Docker, with the README's
# Dockerfile and run lines (tests/containers/run.sh says how).
check-containers: $(OUT)/ebpfjail $(OUT)/probe
	$(Q)tests/containers/run.sh $(OUT)/ebpfjail

# The main job: `ebpfjail run` in the simulated network, with a demo agent.
demo: $(OUT)/ebpfjail $(OUT)/probe
	$(Q)scripts/deps.sh --check
	$(Q)scripts/demo.sh

# The judge (bench/lib.sh) on made-up figures, then one short round of
# every benchmark, no verdicts: they cannot rot unseen.
bench-smoke: $(BENCH_BINS)
	$(Q){ bench/test_lib.sh && bench/run.sh --smoke --json $(OUT)/bench-smoke.json; } \
		>$(OUT)/bench-smoke.txt; rc=$$?; \
	sed 's/^/  bench    /' $(OUT)/bench-smoke.txt; exit $$rc

# First the dependency check (scripts/deps.list: a missing program fails
# here, naming its package, not in the middle of a suite), then the build,
# the unit tests (Criterion's summary), the fuzzer and the benchmark smoke
# run, the container suite, then the integration suite, whose
# "N passed, M failed" line ends the output.
check:
	$(Q)scripts/deps.sh --check
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory fuzz
	$(Q)$(MAKE) --no-print-directory bench-smoke
	$(Q)$(MAKE) --no-print-directory check-containers
	$(Q)$(MAKE) --no-print-directory check-package
	$(Q)$(MAKE) --no-print-directory check-trixie-build
	$(Q)$(MAKE) --no-print-directory integration

# A new machine, for real: scripts/check-fresh.sh says how.
check-fresh:
	$(Q)scripts/check-fresh.sh

# Man pages: scdoc source in man/, roff in build/man/.
MAN_SRCS := $(wildcard man/*.scd)
MAN_PAGES := $(patsubst man/%.scd,$(OUT)/man/%,$(MAN_SRCS))

$(OUT)/man/%: man/%.scd
	$(call msg,SCDOC,$@)
	$(Q)mkdir -p $(OUT)/man
	$(Q)scdoc <$< >$@

man: $(MAN_PAGES)

# Debian's layout for a locally built tool. The binary and paths in it
# (/etc/ebpfjail.conf, /var/log/ebpfjail, /run/ebpfjail) do not move with
# PREFIX: they are what the program reads.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
PROFILEDIR := $(PREFIX)/share/ebpfjail/profiles
SYSCONFDIR := /etc
LOGDIR := /var/log/ebpfjail
# The AppArmor profile into $(SYSCONFDIR)/apparmor.d: yes, no, or auto
# (where this machine's AppArmor is 4 or newer, which the profile needs).
APPARMOR ?= auto

install: $(OUT)/ebpfjail $(MAN_PAGES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(SYSCONFDIR)
	install -m 0755 $(OUT)/ebpfjail $(DESTDIR)$(BINDIR)/ebpfjail
	install -m 0755 scripts/ebpfjail-entrypoint $(DESTDIR)$(BINDIR)/ebpfjail-entrypoint
	install -m 0644 $(OUT)/man/ebpfjail.1 $(DESTDIR)$(MANDIR)/man1/ebpfjail.1
	install -m 0644 $(OUT)/man/ebpfjail-entrypoint.1 $(DESTDIR)$(MANDIR)/man1/ebpfjail-entrypoint.1
	install -m 0644 $(OUT)/man/ebpfjail.conf.5 $(DESTDIR)$(MANDIR)/man5/ebpfjail.conf.5
	install -m 0644 completion/ebpfjail.bash $(DESTDIR)$(COMPLETIONDIR)/ebpfjail
	install -d $(DESTDIR)$(PROFILEDIR)
	install -m 0644 $(PROFILE_SRCS) $(DESTDIR)$(PROFILEDIR)
	@# The administrator's configuration is theirs: never overwritten.
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/ebpfjail.conf ]; then \
		echo "  keeping $(DESTDIR)$(SYSCONFDIR)/ebpfjail.conf (the example is $(DESTDIR)$(SYSCONFDIR)/ebpfjail.conf.example)"; \
		install -m 0644 etc/ebpfjail.conf $(DESTDIR)$(SYSCONFDIR)/ebpfjail.conf.example; \
	else \
		install -m 0644 etc/ebpfjail.conf $(DESTDIR)$(SYSCONFDIR)/ebpfjail.conf; \
	fi
	install -d -m 0750 $(DESTDIR)$(LOGDIR)
	install -d $(DESTDIR)$(PREFIX)/share/ebpfjail/apparmor
	install -m 0644 etc/apparmor.d/ebpfjail $(DESTDIR)$(PREFIX)/share/ebpfjail/apparmor/ebpfjail
	@# In force only where AppArmor 4 parses it (the userns rule: Ubuntu
	@# 24.04, Debian 13); Debian 12's 3.0 would fail on it at every boot.
	@if [ "$(APPARMOR)" = yes ] || { [ "$(APPARMOR)" = auto ] && [ -e $(SYSCONFDIR)/apparmor.d/abi/4.0 ]; }; then \
		install -d $(DESTDIR)$(SYSCONFDIR)/apparmor.d; \
		install -m 0644 etc/apparmor.d/ebpfjail $(DESTDIR)$(SYSCONFDIR)/apparmor.d/ebpfjail; \
		echo "  installed $(DESTDIR)$(SYSCONFDIR)/apparmor.d/ebpfjail (load it: apparmor_parser -r)"; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ebpfjail $(DESTDIR)$(BINDIR)/ebpfjail-entrypoint \
		$(DESTDIR)$(MANDIR)/man1/ebpfjail.1 $(DESTDIR)$(MANDIR)/man1/ebpfjail-entrypoint.1 \
		$(DESTDIR)$(MANDIR)/man5/ebpfjail.conf.5 \
		$(DESTDIR)$(COMPLETIONDIR)/ebpfjail $(DESTDIR)$(SYSCONFDIR)/ebpfjail.conf.example \
		$(DESTDIR)$(SYSCONFDIR)/apparmor.d/ebpfjail
	rm -rf $(DESTDIR)$(PROFILEDIR) $(DESTDIR)$(PREFIX)/share/ebpfjail/apparmor
	-rmdir $(DESTDIR)$(PREFIX)/share/ebpfjail
	@echo "  left $(DESTDIR)$(SYSCONFDIR)/ebpfjail.conf and $(DESTDIR)$(LOGDIR) (your configuration and audit log)"

clean:
	$(call msg,CLEAN,$(OUT))
	$(Q)rm -rf $(OUT)

# Header dependencies written by -MMD -MP.
-include $(wildcard $(OUT)/user/*.d $(OUT)/user/*/*.d $(OUT)/user/*/*/*.d $(OUT)/tests/unit/*.d)
