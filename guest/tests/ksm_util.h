/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the guest tests: KSM sysfs access. */
#ifndef KSM_GUEST_UTIL_H
#define KSM_GUEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KSM_SYSFS "/sys/kernel/mm/ksm/"

/* Read a KSM sysfs file into buf; returns 0 or -errno. */
static inline int ksm_read(const char *knob, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KSM_SYSFS "%s", knob);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static inline long ksm_get(const char *knob)
{
	char buf[64];

	if (ksm_read(knob, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/* Write a string to a KSM sysfs file; returns 0 or -errno. */
static inline int ksm_write(const char *knob, const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KSM_SYSFS "%s", knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static inline int ksm_set(const char *knob, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return ksm_write(knob, buf);
}

/* Read /proc/<pid>/ksm_stat into buf; returns 0 or -errno. */
static inline int ksm_stat_read(int pid, char *buf, size_t len)
{
	char path[64];
	size_t got = 0;
	ssize_t n = 0;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/ksm_stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	err = n < 0 ? -errno : 0;
	close(fd);
	buf[got] = '\0';
	return err;
}

/* The text after "key " on the line of ksm_stat text that starts with key. */
static inline const char *ksm_stat_find(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *l = text;

	while (l && *l) {
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return l + kl + 1;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return NULL;
}

/* One number of /proc/<pid>/ksm_stat, or -1. */
static inline long ksm_stat_get(int pid, const char *key)
{
	const char *v;
	char buf[1024];

	if (ksm_stat_read(pid, buf, sizeof(buf)))
		return -1;
	v = ksm_stat_find(buf, key);
	return v ? strtol(v, NULL, 10) : -1;
}

#endif
