#!/usr/bin/env bash
# Check the series in kernel/patches/ as a reviewer's tools would:
#   - apply it on `base` patch by patch (build/series-tree, a worktree);
#   - build every step with the engine on (kernel/config/base.config) and
#     off (+ engine-off.config), incrementally with ccache
#     (build/obj-series-on, build/obj-series-off);
#   - checkpatch.pl --strict on every patch: no error;
#   - the tip must be the tree `make test` builds (build/linux's HEAD);
#   - KUnit at the tip: the engine-on kernel boots with every suite of
#     tests/manifest.
# Not part of `make test`; run it whenever the series changes.
SERIES_LIB=1 source "$(dirname "$0")/series.sh"

CHECKPATCH_IGNORE=FILE_PATH_CHANGES

[ -d "$SRC/.git" ] || die "no build tree at $SRC: run 'make prepare' first"
[ -f "$BUILD/initramfs.cpio.gz" ] || die "no guest initramfs: run 'make guest' first"
mapfile -t patches < <(series_patches)
[ "${#patches[@]}" -gt 0 ] || die "no patch in kernel/patches/"

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=true
export KBUILD_BUILD_USER=ksm KBUILD_BUILD_HOST=harness

# configure ON|OFF: tinyconfig plus the fragments, again at every step (a
# patch may add Kconfig symbols); the engine's symbol must take as asked
# once the tree has it.
configure() {
	local v=$1 obj=$BUILD/obj-series-$1 frags=("$TOP/kernel/config/base.config")
	[ "$v" = on ] || frags+=("$TOP/kernel/config/engine-off.config")
	mkdir -p "$obj"
	make -C "$TREE" O="$obj" -s tinyconfig >/dev/null
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"${frags[@]}" >"$obj/merge.log" 2>&1
	make -C "$TREE" O="$obj" -s olddefconfig >/dev/null
	if grep -q '^config KSM_ADAPTIVE$' "$TREE/mm/Kconfig"; then
		if [ "$v" = on ]; then
			grep -qx 'CONFIG_KSM_ADAPTIVE=y' "$obj/.config" ||
				die "engine-on config lacks CONFIG_KSM_ADAPTIVE=y"
		elif grep -qx 'CONFIG_KSM_ADAPTIVE=y' "$obj/.config"; then
			die "engine-off config has CONFIG_KSM_ADAPTIVE=y"
		fi
	fi
}

build() {
	local v=$1 obj=$BUILD/obj-series-$1
	configure "$v"
	# A silent build prints only warnings and errors: none may show.
	if ! make -C "$TREE" O="$obj" CC="ccache gcc" -j"$JOBS" -s "$2" \
		>"$obj/build.log" 2>&1 || grep -q 'warning:' "$obj/build.log"; then
		grep -E 'error|warning' "$obj/build.log" | head -20 >&2
		return 1
	fi
}

start=$(date +%s)
series_reset

i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	name=$(basename "$p")
	series_am "$p"
	out=$("$TREE/scripts/checkpatch.pl" --strict --no-tree --show-types \
		--ignore "$CHECKPATCH_IGNORE" --color=never "$p" 2>&1 || true)
	errors=$(printf '%s\n' "$out" | grep -c '^ERROR:' || true)
	warnings=$(printf '%s\n' "$out" | grep -cE '^(WARNING|CHECK):' || true)
	[ "$errors" = 0 ] || { printf '%s\n' "$out" | grep -A3 '^ERROR:' >&2; die "$name: checkpatch errors"; }
	for v in on off; do
		build "$v" vmlinux || die "$name does not build with the engine $v"
	done
	log "$i/${#patches[@]} $name: builds with the engine on and off; checkpatch $warnings warning(s)"
done

# The tip is the tree make test builds: build/linux's HEAD, file for file.
[ -z "$(git -C "$SRC" status --porcelain --untracked-files=no)" ] ||
	log "WARNING: $SRC has uncommitted edits; comparing its HEAD"
[ "$(git -C "$TREE" rev-parse HEAD^{tree})" = "$(git -C "$SRC" rev-parse HEAD^{tree})" ] || {
	git -C "$SRC" diff --stat HEAD "$(git -C "$TREE" rev-parse HEAD)" >&2
	die "the series' tip is not $SRC's HEAD: export the tree's commits (make export-patches)"
}
log "the tip is the tree make test builds"

# KUnit at the tip, in a guest, as make test runs it.
build on bzImage || die "the tip does not build a bzImage"
manifest=$(mktemp)
grep -E '^kunit[[:space:]]' "$TOP/tests/manifest" >"$manifest"
python3 "$TOP/harness/test.py" --manifest "$manifest" \
	--kernel "$BUILD/obj-series-on/arch/x86/boot/bzImage" \
	--logdir "$BUILD/series-kunit" || { rm -f "$manifest"; die "KUnit failed at the tip"; }
rm -f "$manifest"
log "series checked: ${#patches[@]} patches in $(( $(date +%s) - start )) s"
