# Adaptive memory deduplication for Linux (KSM extension) - top-level targets.
# `make test` is the project's test command; see README.md.

H := harness
PY := /usr/bin/python3

WORKLOADS ?= static-mix sparse
ENGINES ?= none ksm-100 ksm-1000 ksm-2000 ksm-advisor
SIZE_MB ?= 0
REPEAT ?= 3
WINDOW ?= 60
SOAK_MIN ?= 30

.PHONY: bench baseline bench-check demo results results-plan all deps docs-deps htmldocs prepare kernel kernel-release kernel-upstream guest test test-only soak variants \
	export-patches series series-check checkpatch clean distclean help

all: test

help:
	@echo "make test            install deps, build the debug kernel and guest, run tests/manifest"
	@echo "make test-only ONLY=regex   run a subset against what is already built"
	@echo "make soak [SOAK_MIN=30]     knob storm, churn and reshape rounds on the debug kernel"
	@echo "make kernel          build the debug kernel (build/obj-debug)"
	@echo "make kernel-release  build the release kernel (build/obj-release)"
	@echo "make bench WORKLOADS=.. ENGINES=.. SIZE_MB=N REPEAT=R WINDOW=S   side-by-side bench"
	@echo "make bench-check     check bench/targets.conf against the newest bench"
	@echo "make demo            a short side-by-side bench with headline tables, verdicts and plots"
	@echo "make results [REPEAT=3]   the benches bench/targets.conf names, into docs/results.md"
	@echo "make results-plan    what make results would run, and its estimated time"
	@echo "make variants        build with CONFIG_KSM_ADAPTIVE=n and with CONFIG_NUMA=n"
	@echo "make kernel-upstream build the tree at base, no patch (build/obj-upstream): the bench's upstream baseline"
	@echo "make export-patches  export build/linux commits since 'base' to kernel/patches"
	@echo "make series          the mailable series (kernel/cover-letter + kernel/patches) in build/series"
	@echo "make series-check    apply kernel/patches patch by patch, build each with the engine on and off, KUnit at the tip"
	@echo "make checkpatch      checkpatch.pl over kernel/patches"
	@echo "make deps            install the Debian packages the builds, tests and bench use"
	@echo "make htmldocs        the kernel's admin guide as HTML (build/obj-docs); installs Sphinx (make docs-deps)"

deps:
	@bash $(H)/deps.sh

# After deps: two apt-get at once (make -j) would fight over dpkg's lock.
docs-deps: deps
	@bash $(H)/deps.sh --docs

# The kernel's admin guide (Documentation/admin-guide, the engine's page in
# mm/) as HTML: build/obj-docs/Documentation/output/admin-guide/index.html.
htmldocs: docs-deps prepare
	@$(MAKE) -s -C build/linux O=$(CURDIR)/build/obj-docs htmldocs SPHINXDIRS=admin-guide

prepare: deps
	@bash $(H)/prepare-tree.sh

kernel: prepare
	@bash $(H)/build-kernel.sh debug

kernel-release: prepare
	@bash $(H)/build-kernel.sh release

guest: prepare
	@bash $(H)/build-guest.sh

test: kernel kernel-release guest
	@$(PY) $(H)/test.py

test-only:
	@$(PY) $(H)/test.py $(if $(ONLY),--only '$(ONLY)')

soak: kernel guest
	@$(PY) $(H)/soak.py --minutes $(SOAK_MIN)

bench: kernel-release guest
	@$(PY) bench/bench.py --workloads "$(WORKLOADS)" --engines "$(ENGINES)" \
		--size-mb $(SIZE_MB) --repeat $(REPEAT) --window $(WINDOW)

# The stock baseline in docs/results.md: every workload at its default size.
baseline: kernel-release guest
	@$(PY) bench/bench.py --workloads "static-mix sparse cow-broken short-lived similar-images numa-mirror numa-mirror-differ thp-mixed churn" \
		--engines "none ksm-100 ksm-1000 ksm-2000 ksm-advisor" --repeat $(REPEAT) \
		--window $(WINDOW) --publish docs/results.md

bench-check:
	@$(PY) bench/check.py

# Its workloads, sizes and window are bench.py's DEMO_*; its engines those
# bench/engines.conf marks demo.
demo: kernel-release guest
	@$(PY) bench/bench.py --demo

# The benches bench/targets.conf names, one boot each, into docs/results.md
# and README.md's results block.
results: kernel-release guest
	@$(PY) bench/results.py --repeat $(REPEAT)

results-plan:
	@$(PY) bench/results.py --repeat $(REPEAT) --dry-run

kernel-upstream: prepare
	@bash $(H)/build-kernel.sh upstream

variants: prepare
	@bash $(H)/build-kernel.sh noengine
	@bash $(H)/build-kernel.sh nonuma

export-patches:
	@bash $(H)/export-patches.sh

series: prepare
	@bash $(H)/series.sh

series-check: prepare guest
	@bash $(H)/series-check.sh

checkpatch: prepare
	@bash $(H)/checkpatch.sh

clean:
	rm -rf build/obj-* build/guest build/rootfs build/initramfs.cpio.gz build/test

distclean:
	rm -rf build
