#!/usr/bin/env bash
# Build the guest side: kernel headers, upstream's KSM selftests and our guest
# programs (static), and the initramfs build/initramfs.cpio.gz with busybox.
source "$(dirname "$0")/lib.sh"

HDR=$BUILD/hdr
OUT=$BUILD/guest
ROOT=$BUILD/rootfs
INITRD=$BUILD/initramfs.cpio.gz

# Headers from an object tree of their own, so the source tree stays clean
# for O= builds.
if [ ! -f "$HDR/.stamp" ] || [ "$(git -C "$SRC" rev-parse HEAD)" != "$(cat "$HDR/.stamp")" ]; then
	log "installing kernel headers"
	with_progress "installing kernel headers" "$BUILD/obj-headers" '*.h' "headers generated" \
		make -C "$SRC" O="$BUILD/obj-headers" -s headers_install INSTALL_HDR_PATH="$HDR"
	git -C "$SRC" rev-parse HEAD >"$HDR/.stamp"
fi
with_progress "building the guest programs" "$OUT" '*' "programs built" \
	make -C "$TOP/guest" -s SRC="$SRC" HDR="$HDR" OUT="$OUT" -j"$JOBS"

BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] && file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically' ||
	BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "static busybox not found: run harness/deps.sh"

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,proc,sys,dev,tmp,opt/ksm/bin,opt/ksm/doc}
cp "$BUSYBOX" "$ROOT/bin/busybox"
for app in $("$BUSYBOX" --list); do
	[ -e "$ROOT/bin/$app" ] || ln -s busybox "$ROOT/bin/$app"
done
cp "$TOP/guest/rootfs/init" "$ROOT/init"
cp "$TOP/guest/rootfs/ksm-knobs" "$TOP/guest/rootfs/ksm-set" "$ROOT/bin/"
cp "$OUT"/* "$ROOT/opt/ksm/bin/"
# KSM's ABI files and admin guides from the tree built, for
# ksm_sysfs_documented (which fails on a missing one); copied on every run,
# as the whole initramfs is rebuilt.
for doc in ABI/testing/sysfs-kernel-mm-ksm ABI/testing/sysfs-kernel-mm-ksm-adaptive \
	admin-guide/mm/ksm.rst admin-guide/mm/ksm_adaptive.rst; do
	if [ -f "$SRC/Documentation/$doc" ]; then
		cp "$SRC/Documentation/$doc" "$ROOT/opt/ksm/doc/"
	else
		log "WARNING: $SRC/Documentation/$doc missing: ksm_sysfs_documented will fail"
	fi
done
mknod -m 600 "$ROOT/dev/console" c 5 1
mknod -m 666 "$ROOT/dev/null" c 1 3
( cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 ) |
	gzip -1 >"$INITRD.tmp"
mv "$INITRD.tmp" "$INITRD"
log "initramfs: $INITRD ($(du -h "$INITRD" | cut -f1))"
