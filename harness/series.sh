#!/usr/bin/env bash
# Write the mailable series to build/series/: kernel/patches/*.patch applied
# on `base` in build/series-tree (a worktree of the build tree), then
# `git format-patch --cover-letter` with the cover text of
# kernel/cover-letter (first line the subject, the rest the body).
#
# kernel/patches/ holds the engine as a reviewer reads it, one idea a patch,
# the engine's new files in the patch that introduces them; it is also what
# `make prepare` applies. `make series-check` builds it patch by patch.
source "$(dirname "$0")/lib.sh"

SERIES=$TOP/kernel/patches
COVER=$TOP/kernel/cover-letter
OUT=$BUILD/series
TREE=$BUILD/series-tree

[ -d "$SRC/.git" ] || die "no build tree at $SRC: run 'make prepare' first"
[ -f "$COVER" ] || die "kernel/cover-letter missing"

# series_reset: build/series-tree, a worktree of the build tree, at base.
series_reset() {
	if [ ! -e "$TREE/.git" ]; then
		rm -rf "$TREE"
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$TREE" base
	fi
	git -C "$TREE" am --abort >/dev/null 2>&1 || true
	git -C "$TREE" reset -q --hard base
	git -C "$TREE" clean -qfdx
}

# series_am PATCH: apply one patch of the series on build/series-tree.
series_am() {
	git -C "$TREE" am -q --keep-cr "$1" >/dev/null 2>"$BUILD/am.err" || {
		git -C "$TREE" am --abort >/dev/null 2>&1 || true
		sed 's/^/    /' "$BUILD/am.err" >&2
		die "kernel/patches/$(basename "$1") does not apply"
	}
}

series_patches() {
	find "$SERIES" -maxdepth 1 -name '*.patch' | LC_ALL=C sort
}

# series-check.sh sources this file for the functions above.
[ "${SERIES_LIB:-}" = 1 ] && return 0

series_reset
mapfile -t patches < <(series_patches)
for p in "${patches[@]}"; do series_am "$p"; done
rm -rf "$OUT" && mkdir -p "$OUT"
git -C "$TREE" format-patch -q --cover-letter --numbered --zero-commit \
	--no-signature -o "$OUT" base..HEAD
cover=$OUT/0000-cover-letter.patch
subject=$(head -n1 "$COVER")
python3 - "$cover" "$subject" "$COVER" <<'EOF'
import sys
path, subject, body_file = sys.argv[1:4]
body = open(body_file).read().split("\n", 1)[1].strip("\n")
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
open(path, "w").write(text)
EOF
n=$(find "$OUT" -maxdepth 1 -name '*.patch' ! -name '0000-*' | wc -l)
log "wrote a cover letter and $n patch(es) to build/series/"
