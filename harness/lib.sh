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

# with_progress LABEL DIR GLOB NOUN CMD...: run CMD in the foreground, its
# output and exit status as they are, and while it runs print to stderr every
# PROGRESS_SECS seconds (60) a line "LABEL: 3m00s elapsed, N NOUN", N the files
# under DIR named GLOB written since CMD started. The printer ends with CMD,
# also when CMD fails or this shell exits on a signal, and by itself within
# PROGRESS_TICK seconds (5) of this shell's end otherwise. Either setting, if
# not a whole number >= 1, is reported and its default used. While CMD runs the
# shell's EXIT trap ends the printer, then runs the caller's EXIT trap; the
# caller's trap is back once CMD returns. The printer's mark file (a hidden
# file in $BUILD) goes with the printer. CMD runs as in an `||` list (errexit
# off inside it): give it one command.
with_progress() {
	local label=$1 dir=$2 glob=$3 noun=$4
	shift 4
	local mark q printer rc=0 saved old= every tick me=$BASHPID
	local -a parts
	every=$(_progress_secs PROGRESS_SECS 60)
	tick=$(_progress_secs PROGRESS_TICK 5)
	mkdir -p "$BUILD"
	mark=$(mktemp "$BUILD/.progress.XXXXXX")
	_progress_printer "$label" "$dir" "$glob" "$noun" "$mark" "$me" "$every" "$tick" &
	printer=$!
	# "trap -- 'CMD' EXIT", or nothing: the caller's trap, to chain and restore.
	saved=$(trap -p EXIT)
	if [ -n "$saved" ]; then
		eval "parts=(${saved#trap })" # -- CMD EXIT
		old=${parts[1]}
	fi
	# The caller's trap sees the exit status as it was.
	printf -v q %q "$mark"
	# shellcheck disable=SC2064
	trap "_progress_rc=\$?; kill $printer 2>/dev/null; rm -f $q; _progress_status \$_progress_rc
$old" EXIT
	"$@" || rc=$?
	kill "$printer" 2>/dev/null || true
	wait "$printer" 2>/dev/null || true
	rm -f "$mark"
	eval "${saved:-trap - EXIT}"
	return "$rc"
}

# _progress_status N: sets $? to N.
_progress_status() { return "$1"; }

# _progress_secs VAR DEFAULT: $VAR if it is a whole number >= 1, else DEFAULT
# (said on stderr when VAR is set).
_progress_secs() {
	local v=${!1:-}
	if [[ $v =~ ^[0-9]+$ ]] && ((10#$v >= 1)); then
		echo $((10#$v))
		return
	fi
	[ -z "$v" ] || log "$1='$v' is not a whole number of seconds >= 1: using $2"
	echo "$2"
}

_progress_printer() {
	local label=$1 dir=$2 glob=$3 noun=$4 mark=$5 parent=$6 every=$7 tick=$8
	local fd start=$EPOCHSECONDS next wait n t
	local q
	printf -v q %q "$mark"
	# shellcheck disable=SC2064
	trap "rm -f $q" EXIT
	trap 'exit 0' TERM
	# Sleep in the read builtin on a pipe that never has data: no child
	# process to leave behind, and a signal ends the wait.
	exec {fd}<> <(:)
	next=$((start + every))
	while _progress_parent_is "$parent"; do
		wait=$((next - EPOCHSECONDS))
		[ "$wait" -le "$tick" ] || wait=$tick
		[ "$wait" -le 0 ] || { read -r -t "$wait" -u "$fd" _ || true; }
		[ "$EPOCHSECONDS" -ge "$next" ] || continue
		next=$((next + every))
		t=$((EPOCHSECONDS - start))
		n=$(find "$dir" -name "$glob" -type f -newer "$mark" 2>/dev/null | wc -l) || true
		log "$label: $((t / 60))m$(printf %02d $((t % 60)))s elapsed, $n $noun"
	done
}

# _progress_parent_is PID: this process's parent is still PID (a process whose
# parent ends is handed to another at once, before the parent is reaped).
_progress_parent_is() {
	local want=$1 stat
	read -r stat <"/proc/$BASHPID/stat" || return 1
	# "pid (comm) state ppid ...": the fields after the command's name.
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- $stat
	[ "$2" = "$want" ]
}
