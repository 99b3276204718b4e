#!/usr/bin/env bash
# Install every Debian package the project needs; a no-op when all are there.
source "$(dirname "$0")/lib.sh"

PKGS=(
	"$KERNEL_PKG" qemu-system-x86 busybox-static libnuma-dev ccache
	build-essential flex bison bc libelf-dev libssl-dev cpio kmod
	python3 python3-matplotlib perl git xz-utils
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

have=$(dpkg-query -W -f='${Version}' "$KERNEL_PKG")
if [ "$have" != "$KERNEL_PKG_VERSION" ]; then
	cat >&2 <<MSG
################################################################################
WARNING: $KERNEL_PKG is $have, but the project records $KERNEL_PKG_VERSION
(kernel/BASE_VERSION). Going on: the build fails if a patch no longer applies.
################################################################################
MSG
fi
