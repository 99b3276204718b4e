/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's headers to build mm/ksm_page_hash.c and
 * lib/xxhash.c unchanged in user space (bench/hashq).
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef int32_t s32;

#define PAGE_SIZE	4096UL
#define __init
#define __ro_after_init
#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define EXPORT_SYMBOL(s)
#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)
#define S64_MIN		INT64_MIN
#define OPTIMIZER_HIDE_VAR(v)	__asm__ ("" : "=r" (v) : "0" (v))

#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define swap(a, b)	do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)
#define abs(x)		((x) < 0 ? -(x) : (x))

/* Run an initcall before main(), as boot would. */
#define subsys_initcall(fn) \
	static void __attribute__((constructor)) fn##_ctor(void) { fn(); }

static inline u64 div_u64(u64 a, u32 b) { return a / b; }
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The permutation's randomness: seeded by hashq (-s), as boot would. */
extern u64 kshim_seed;

static inline u32 get_random_u32_below(u32 ceil)
{
	kshim_seed ^= kshim_seed << 13;
	kshim_seed ^= kshim_seed >> 7;
	kshim_seed ^= kshim_seed << 17;
	return (u32)((kshim_seed >> 32) * ceil >> 32);
}

extern char kshim_zero_page[4096];
#define ZERO_PAGE(v)		((void *)kshim_zero_page)
#define page_address(p)		(p)

static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return v;
}

#endif
