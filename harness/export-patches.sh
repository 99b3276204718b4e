#!/usr/bin/env bash
# Export the build tree's commits since `base` to kernel/patches/: the series,
# one idea a patch, our new files in the patch that introduces them. A fix to
# an earlier patch is committed with `git commit --fixup=<commit>` and folded
# (`git rebase -i --autosquash base`) before it is exported.
source "$(dirname "$0")/lib.sh"

PATCHES=$TOP/kernel/patches
[ -d "$SRC/.git" ] || die "no build tree at $SRC: run 'make prepare' first"
if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=all)" ]; then
	git -C "$SRC" status --short --untracked-files=all >&2
	die "$SRC has uncommitted edits or files git does not track: commit them there first (a new file in the commit that introduces it)"
fi
[ -n "$(git -C "$SRC" rev-list base..HEAD)" ] || die "$SRC has no commit since base: nothing to export"
STAMP=$(series_stamp)
read -r had_series had_head 2>/dev/null <"$STAMP" || had_series=none
if [ "$had_series" = none ]; then
	log "WARNING: no record of the series $SRC was prepared from; exporting its commits as they are"
elif [ "$had_series" != "$(series_id)" ]; then
	die "kernel/patches changed since $SRC was prepared from it: exporting would undo that change. Keep your commits (git -C $SRC branch -f mine HEAD), reset the tree (git -C $SRC reset --hard base), run make prepare, then git -C $SRC cherry-pick base..mine"
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
echo "$(series_id) $(git -C "$SRC" rev-parse HEAD)" >"$STAMP"
log "exported $n patch(es) to kernel/patches/"
