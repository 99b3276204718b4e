# Shared settings for the harness shell scripts (sourced, not run).
# shellcheck shell=bash
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
SRC=${SRC:-$BUILD/linux}
KERNEL_PKG=linux-source-6.12
KERNEL_TARBALL=/usr/src/linux-source-6.12.tar.xz
# The package version our patches were made against (see docs/development.md).
KERNEL_PKG_VERSION=$(cat "$TOP/kernel/BASE_VERSION")
JOBS=${JOBS:-$(( $(nproc) + 1 ))}

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }

# series_id: one hash of the series in $PATCHES (kernel/patches by default),
# recorded with the tree's HEAD in series_stamp when the tree is prepared
# from it or exported to it.
series_id() {
	( cd "${PATCHES:-$TOP/kernel/patches}" && find . -maxdepth 1 -name '*.patch' |
		LC_ALL=C sort | xargs -r sha256sum ) | sha256sum | cut -d' ' -f1
}
series_stamp() { git -C "$SRC" rev-parse --path-format=absolute --git-path ksm-series; }
