#!/usr/bin/env bash
# Run the kernel's checkpatch.pl over our patch series (our new files are in
# it). Errors fail; warnings are shown.
source "$(dirname "$0")/lib.sh"

CP="$SRC/scripts/checkpatch.pl"
[ -x "$CP" ] || die "no $CP: run 'make prepare' first"
opts=(--no-tree --strict --show-types --color=never --ignore FILE_PATH_CHANGES)
errors=0 warnings=0
check() {
	local out
	out=$("$CP" "${opts[@]}" "$@" 2>&1) || true
	local e w
	e=$(grep -c '^ERROR:' <<<"$out" || true)
	w=$(grep -cE '^(WARNING|CHECK):' <<<"$out" || true)
	errors=$((errors + e))
	warnings=$((warnings + w))
	if [ "$e" -gt 0 ] || [ "$w" -gt 0 ]; then printf '%s\n' "$out"; fi
}
for p in "$TOP"/kernel/patches/*.patch; do
	[ -e "$p" ] || continue
	echo "== $(basename "$p")"
	check "$p"
done
echo "checkpatch: $errors error(s), $warnings warning(s)/check(s)"
[ "$errors" -eq 0 ]
