#!/usr/bin/env bash
# Build one kernel variant into build/obj-<variant>/ (bzImage and headers).
#   release   kernel/config/base.config
#   debug     + debug.config (lockdep, DEBUG_VM, DEBUG_LIST, KASAN)
#   noengine  + engine-off.config (CONFIG_KSM_ADAPTIVE=n)
#   nonuma    + numa-off.config (CONFIG_NUMA=n)
#   upstream  + engine-off.config, built from the tree at `base` (no patch):
#             upstream KSM, the bench's baseline (build/upstream, a worktree)
# Incremental: reruns reuse the object tree and ccache.
source "$(dirname "$0")/lib.sh"

variant=${1:-debug}
case $variant in
release) frags=(base) ;;
debug) frags=(base debug) ;;
noengine) frags=(base engine-off) ;;
nonuma) frags=(base numa-off) ;;
upstream)
	frags=(base engine-off)
	if [ ! -e "$BUILD/upstream/.git" ]; then
		rm -rf "$BUILD/upstream"
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$BUILD/upstream" base
	fi
	SRC=$BUILD/upstream
	;;
*) die "unknown kernel variant '$variant' (release, debug, noengine, nonuma, upstream)" ;;
esac
OBJ=$BUILD/obj-$variant
mkdir -p "$OBJ"
files=()
for f in "${frags[@]}"; do files+=("$TOP/kernel/config/$f.config"); done

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Paths below the checkout are hashed relative to it, so a fresh clone
# elsewhere (CI) hits the cache of an earlier build.
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=true
export KBUILD_BUILD_USER=ksm KBUILD_BUILD_HOST=harness
kmake() { make -C "$SRC" O="$OBJ" CC="ccache gcc" -j"$JOBS" -s "$@"; }

want=$(cat "${files[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.fragments" 2>/dev/null)" != "$want" ]; then
	log "configuring $variant: tinyconfig + ${frags[*]}"
	kmake tinyconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "${files[@]}" >"$OBJ/merge.log" 2>&1
	kmake olddefconfig
	# Every symbol a fragment asks for must have stuck (a dependency that
	# silently turns one off would make the variant a lie).
	# The last fragment to name a symbol wins, as in merge_config.sh.
	bad=$(cat "${files[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' |
		awk -F= '{ want[$1] = $0 } END { for (s in want) print want[s] }' |
		while IFS= read -r line; do
			sym=${line%%=*} val=${line#*=}
			if [ "$val" = n ]; then
				if grep -qx "$sym=[ym]" "$OBJ/.config"; then echo "$line"; fi
			elif ! grep -qxF "$line" "$OBJ/.config"; then
				echo "$line"
			fi
		done | sort)
	[ -z "$bad" ] || die "config $variant did not take: $(echo $bad)"
	echo "$want" >"$OBJ/.fragments"
fi
log "building $variant kernel in $OBJ"
start=$SECONDS
with_progress "building $variant kernel" "$OBJ" '*.o' "objects built" kmake bzImage
log "built $variant in $((SECONDS - start)) s: $OBJ/arch/x86/boot/bzImage"
