#!/usr/bin/env bash
# Make $SRC the kernel tree we build: Debian's linux-source-6.12 as a git tree
# tagged `base`, and the series in kernel/patches/ (our new files included in
# the patches that introduce them) applied in order as commits.
#
# Reuses an existing tree. Work a developer has in the tree (uncommitted
# edits, or commits not yet exported) is never thrown away: the script warns
# and builds it as it is.
source "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/kernel/patches}

# apply_series DIR: apply every patch in $PATCHES to the git tree DIR, in
# order, naming the first one that fails.
apply_series() {
	local dir=$1 p n=0
	local patches
	mapfile -t patches < <(find "$PATCHES" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
	for p in "${patches[@]}"; do
		if ! git -C "$dir" am -q --keep-cr "$p" >/dev/null 2>"$BUILD/am.err"; then
			git -C "$dir" am --abort >/dev/null 2>&1 || true
			sed 's/^/    /' "$BUILD/am.err" >&2
			# Never leave a half-applied series to be built later.
			git -C "$dir" reset -q --hard base
			die "patch $(basename "$p") does not apply ($p); the tree is back at base"
		fi
		n=$((n + 1))
	done
	log "applied $n patch(es) from kernel/patches"
}

extract() {
	[ -f "$KERNEL_TARBALL" ] || die "$KERNEL_TARBALL missing: run harness/deps.sh"
	log "extracting $KERNEL_TARBALL"
	rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp"
	tar -C "$SRC.tmp" -xf "$KERNEL_TARBALL" --strip-components=1
	# Debian's top-level .gitignore ignores every top-level entry (its
	# packaging repository holds only debian/): drop that block so the
	# kernel's own files and new ones are seen by git.
	sed -i '/^# Debian packaging/,/^!\/debian\//d' "$SRC.tmp/.gitignore"
	git -C "$SRC.tmp" init -q -b master
	git -C "$SRC.tmp" config user.name "ksm-adaptive developers"
	git -C "$SRC.tmp" config user.email "ksm-adaptive@example.invalid"
	git -C "$SRC.tmp" config core.autocrlf false
	git -C "$SRC.tmp" config gc.auto 0
	log "recording the base tree in git (takes a minute)"
	git -C "$SRC.tmp" add -A >/dev/null
	git -C "$SRC.tmp" commit -q -m "base: Debian $KERNEL_PKG $(dpkg-query -W -f='${Version}' "$KERNEL_PKG")" \
		-m "Debian's top-level ignore-everything rule removed from .gitignore."
	git -C "$SRC.tmp" tag base
	mv "$SRC.tmp" "$SRC"
}

mkdir -p "$BUILD"
[ -e "$SRC/.git" ] && git -C "$SRC" rev-parse -q --verify refs/tags/base >/dev/null || {
	rm -rf "$SRC"
	extract
}
# Works in a worktree of the build tree too (harness/selftest.py uses one).
STAMP=$(series_stamp)

# apply_on_base: the tree becomes base plus kernel/patches, stamped.
apply_on_base() {
	log "applying kernel/patches on base"
	git -C "$SRC" reset -q --hard base
	apply_series "$SRC"
	echo "$want $(git -C "$SRC" rev-parse HEAD)" >"$STAMP"
}

want=$(series_id)
read -r had_series had_head 2>/dev/null <"$STAMP" || { had_series=none; had_head=none; }
head=$(git -C "$SRC" rev-parse HEAD)
dirty=$(git -C "$SRC" status --porcelain --untracked-files=no)

if [ "$had_series" = "$want" ] && [ "$had_head" = "$head" ]; then
	:	# up to date
elif [ -n "$dirty" ]; then
	log "WARNING: $SRC has uncommitted edits; building them as they are."
	log "         commit there and run 'make export-patches' to keep them."
	[ "$head" != "$(git -C "$SRC" rev-parse base)" ] ||
		log "WARNING: the tree is at base: kernel/patches is not applied."
elif [ "$head" = "$(git -C "$SRC" rev-parse base)" ]; then
	apply_on_base
elif [ "$had_series" = "$want" ] || [ "$had_series" = none ]; then
	log "WARNING: $SRC has commits not exported to kernel/patches; building them."
	log "         run 'make export-patches' to keep them."
elif [ "$had_head" != "$head" ] && [ "$had_head" != none ]; then
	die "both kernel/patches and the commits in $SRC changed: keep your commits (git -C $SRC branch -f mine HEAD), reset the tree (git -C $SRC reset --hard base), run make prepare, then git -C $SRC cherry-pick base..mine"
else
	apply_on_base
fi
