#!/usr/bin/env bash
# Export the build tree's commits since `base` to kernel/patches/: the series,
# one idea a patch, our new files in the patch that introduces them. A fix to
# an earlier patch is committed with `git commit --fixup=<commit>` and folded
# (`git rebase -i --autosquash base`) before it is exported.
source "$(dirname "$0")/lib.sh"

PATCHES=$TOP/kernel/patches
[ -d "$SRC/.git" ] || die "no build tree at $SRC: run 'make prepare' first"
if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
	git -C "$SRC" status --short --untracked-files=no >&2
	die "$SRC has uncommitted edits: commit them there first"
fi
fixups=$(git -C "$SRC" log --format='%h %s' base..HEAD | grep -E '^[0-9a-f]+ (fixup|squash|amend)! ' || true)
[ -z "$fixups" ] || die "fold these into the patches they fix first (git -C $SRC rebase -i --autosquash base):
$fixups"

tmp=$(mktemp -d)
git -C "$SRC" format-patch -q --no-numbered --zero-commit --no-signature \
	-o "$tmp" base..HEAD
rm -f "$PATCHES"/*.patch
mkdir -p "$PATCHES"
cp "$tmp"/*.patch "$PATCHES"/ 2>/dev/null || true
rm -rf "$tmp"
n=$(find "$PATCHES" -maxdepth 1 -name '*.patch' | wc -l)
series=$( (cd "$PATCHES" && find . -maxdepth 1 -name '*.patch' | LC_ALL=C sort |
	xargs -r sha256sum) | sha256sum | cut -d' ' -f1)
echo "$series $(git -C "$SRC" rev-parse HEAD)" >"$SRC/.git/ksm-series"
log "exported $n patch(es) to kernel/patches/"
