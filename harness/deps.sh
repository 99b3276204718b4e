#!/usr/bin/env bash
# Install the Debian packages the project uses, without their recommends,
# saying for each one it installs what it is for; one line, "nothing to do",
# when all are there.
#   harness/deps.sh           what the builds, the tests and the bench use
#   harness/deps.sh --docs    also what the kernel's `make htmldocs` uses
#   harness/deps.sh --list    print the packages and their uses, install nothing
source "$(dirname "$0")/lib.sh"

# One entry a package or a group of packages: "names|what uses them".
GROUPS_BASE=(
	"$KERNEL_PKG|the kernel source the series applies to (build/linux)"
	"gcc make libc6-dev|compile the kernel, the static guest programs and bench/hashq"
	"flex bison|the kernel's Kconfig parser"
	"bc|the kernel's timer constants (kernel/time/timeconst.bc)"
	"libelf-dev|objtool, which the x86 kernel build runs"
	"xz-utils|unpacks the kernel source; compresses bzImage (CONFIG_KERNEL_XZ)"
	"rsync|make headers_install: the kernel headers of the guest programs"
	"ccache|caches kernel objects across builds and checkouts"
	"libnuma-dev|libnuma.a for upstream's ksm_tests, linked static"
	"busybox-static|the guest's shell and tools"
	"cpio|packs the guest's initramfs"
	"qemu-system-x86|boots the test guest"
	"python3|runs the harness and the bench"
	"python3-matplotlib|the bench's plots (Agg backend, no display)"
	"perl|checkpatch.pl"
	"git|keeps the kernel tree and applies the series"
)
GROUPS_DOCS=(
	"python3-sphinx|make htmldocs: Sphinx, with its default alabaster theme"
	"python3-yaml|make htmldocs: PyYAML (Documentation/sphinx/requirements.txt)"
)

groups=("${GROUPS_BASE[@]}")
list=0
for arg in "$@"; do
	case $arg in
	--docs) groups+=("${GROUPS_DOCS[@]}") ;;
	--list) list=1 ;;
	*) die "unknown option '$arg' (--docs, --list)" ;;
	esac
done

if [ "$list" = 1 ]; then
	for g in "${groups[@]}"; do printf '%s: %s\n' "${g%%|*}" "${g#*|}"; done
	exit 0
fi

names=()
for g in "${groups[@]}"; do read -ra n <<<"${g%%|*}"; names+=("${n[@]}"); done

# One query for all: "name status version" of each package dpkg knows.
declare -A have=() version=()
while read -r name status ver; do
	case $status in ?i*) have[$name]=1 version[$name]=$ver ;; esac
done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev} ${Version}\n' "${names[@]}" 2>/dev/null || true)

missing=()
for g in "${groups[@]}"; do
	read -ra n <<<"${g%%|*}"
	want=()
	for p in "${n[@]}"; do [ -n "${have[$p]:-}" ] || want+=("$p"); done
	[ ${#want[@]} -eq 0 ] && continue
	[ ${#missing[@]} -gt 0 ] || log "installing (apt-get install --no-install-recommends):"
	log "  ${want[*]}: ${g#*|}"
	missing+=("${want[@]}")
done

if [ ${#missing[@]} -eq 0 ]; then
	log "nothing to do: the ${#names[@]} packages are installed"
else
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	mkdir -p "$BUILD"
	aptlog=$BUILD/deps-apt.log
	# apt-get's output goes to $aptlog only, so nothing may wait for an
	# answer: DEBIAN_FRONTEND set by env, past sudo's env_reset, and stdin
	# /dev/null (sudo asks for a password on the terminal, not on stdin).
	# Meanwhile a progress line a minute, with the packages dpkg unpacked so far.
	apt_install() {
		{ $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
			$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				--no-install-recommends "${missing[@]}"; } </dev/null >"$aptlog" 2>&1
	}
	start=$SECONDS
	if ! with_progress "installing ${#missing[@]} package(s)" /var/lib/dpkg/info '*.list' \
		"packages unpacked" apt_install; then
		tail -n 30 "$aptlog" >&2
		die "apt-get failed (whole output in $aptlog)"
	fi
	added=$(grep -c '^Setting up ' "$aptlog" || true)
	log "installed ${#missing[@]} package(s), $added with their dependencies, in $((SECONDS - start)) s (apt-get's output: $aptlog)"
	version[$KERNEL_PKG]=$(dpkg-query -W -f='${Version}' "$KERNEL_PKG")
fi

if [ "${version[$KERNEL_PKG]}" != "$KERNEL_PKG_VERSION" ]; then
	cat >&2 <<MSG
################################################################################
WARNING: $KERNEL_PKG is ${version[$KERNEL_PKG]}, but the project records $KERNEL_PKG_VERSION
(kernel/BASE_VERSION). Going on: the build fails if a patch no longer applies.
################################################################################
MSG
fi
